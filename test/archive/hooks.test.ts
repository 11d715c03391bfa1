// `ferry hooks`: install into a HOME that already has the user's own settings, idempotent
// re-install, uninstall byte for byte, and the hook itself run as the agents run it (a real child
// process fed the agent's payload) archiving exactly its session, never failing the agent.
import t from 'tap'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ferry, FIXTURE, fileTimeout, jsonl, scaled, tempDir } from '../kit.js'
import { CODEX, PROJECT, makeHome } from './helpers.js'

fileTimeout(t, 6 * 60_000)

const SETTINGS = `{
  // the user's own settings: comments, odd spacing and a hook of their own
  "model" :  "opus",
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "notify-send done" } ] }
    ]
  },
  "permissions": { "allow": ["Bash(ls:*)"] }
}
`
const CONFIG = `# the user's Codex config, comments kept
model = "gpt-5.5"   # inline comment
notify = ["NOTIFY"]

[projects."/home/dev/demo-app"]
trust_level = "trusted" # another
`

/** A HOME with every fixture store and the user's own Claude and Codex settings (`notify` writes its payload to a file). */
function userHome(t: Parameters<typeof tempDir>[0]): { home: string; notified: string } {
  const home = makeHome(t)
  const notified = join(home, 'notified.txt')
  const notify = join(home, 'notify.sh')
  writeFileSync(notify, `#!/bin/sh\nprintf '%s' "$1" > '${notified}'\n`, { mode: 0o755 })
  writeFileSync(join(home, '.claude', 'settings.json'), SETTINGS)
  writeFileSync(join(home, '.codex', 'config.toml'), CONFIG.replace('NOTIFY', notify))
  return { home, notified }
}

const read = (p: string) => readFileSync(p, 'utf8')

async function archived(home: string): Promise<string[]> {
  const r = await ferry(['--home', home, 'ls', '--archive', '--all', '--json'])
  return r.code === 0 ? jsonl(r.stdout).map((s) => s.sid).sort() : []
}

/** Polls until `fn` holds (the hook may leave the archive to its detached process). */
async function eventually(fn: () => Promise<boolean> | boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + scaled(ms)
  while (Date.now() < end) {
    if (await fn()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return fn()
}

t.test('install merges into the user\'s files, is idempotent, and uninstall restores them byte for byte', async (t) => {
  const { home } = userHome(t)
  const settings = join(home, '.claude', 'settings.json')
  const config = join(home, '.codex', 'config.toml')
  const before = { s: read(settings), c: read(config) }

  const dry = await ferry(['--home', home, 'hooks', 'install', '--agent', 'claude-code', '--agent', 'codex', '--dry-run'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, /\+.*hooks run claude-code/, 'the dry run shows the Claude Code entry as a diff')
  t.match(dry.stdout, /\+notify = .*hooks.*run.*codex/, 'and the Codex notify line')
  t.same({ s: read(settings), c: read(config) }, before, 'a dry run writes nothing')

  const r = await ferry(['--home', home, 'hooks', 'install', '--agent', 'claude-code,codex'])
  t.equal(r.code, 0, r.stderr)
  const s = read(settings)
  t.ok(s.includes('// the user\'s own settings: comments, odd spacing and a hook of their own'), 'the comment is kept')
  t.ok(s.includes('"model" :  "opus"'), 'the user\'s spacing is kept')
  t.ok(s.includes('{ "hooks": [ { "type": "command", "command": "notify-send done" } ] }'), 'the user\'s own hook is kept as written')
  t.ok(s.includes('"permissions": { "allow": ["Bash(ls:*)"] }'), 'keys ferry does not own are untouched')
  const hooks = JSON.parse(s.replace(/^\s*\/\/.*$/m, '')).hooks
  for (const ev of ['Stop', 'SessionEnd']) {
    const cmds = hooks[ev].flatMap((g: any) => g.hooks.map((h: any) => h.command))
    t.ok(cmds.some((c: string) => c.startsWith(process.execPath) && c.includes('hooks run claude-code') && c.includes(home)), `${ev}: ferry's entry, absolute, with the chosen home`)
  }
  const c = read(config)
  t.ok(c.startsWith('# the user\'s Codex config, comments kept\nmodel = "gpt-5.5"   # inline comment\n'), 'TOML comments and spacing kept')
  t.ok(c.endsWith('[projects."/home/dev/demo-app"]\ntrust_level = "trusted" # another\n'), 'the tables after it too')
  t.match(c, /^notify = \[.*"hooks", "run", "codex".*"--then"/m, 'notify runs ferry, which runs the user\'s own notify after it')

  const st = await ferry(['--home', home, 'hooks', 'status', '--json'])
  const rows = jsonl(st.stdout)
  t.same(rows.filter((x) => x.installed).map((x) => x.harness).sort(), ['claude-code', 'codex'], 'status: installed where it was installed')
  t.ok(rows.some((x) => x.harness === 'grok' && !x.file), 'status: agents without a hook say so')

  const after = { s: read(settings), c: read(config) }
  const again = await ferry(['--home', home, 'hooks', 'install', '--agent', 'claude-code,codex'])
  t.equal(again.code, 0, again.stderr)
  t.match(again.stderr, /already installed/)
  t.same({ s: read(settings), c: read(config) }, after, 'a second install changes nothing')

  const un = await ferry(['--home', home, 'hooks', 'uninstall', '--agent', 'claude-code,codex'])
  t.equal(un.code, 0, un.stderr)
  t.equal(read(settings), before.s, 'settings.json byte for byte as before')
  t.equal(read(config), before.c, 'config.toml byte for byte as before')
})

t.test('uninstall after the user edited the file takes out only ferry\'s entries', async (t) => {
  const { home } = userHome(t)
  const settings = join(home, '.claude', 'settings.json')
  t.equal((await ferry(['--home', home, 'hooks', 'install', '--agent', 'claude-code'])).code, 0)
  writeFileSync(settings, read(settings).replace('"permissions"', '"theme": "dark",\n  "permissions"'))
  const un = await ferry(['--home', home, 'hooks', 'uninstall', '--agent', 'claude-code'])
  t.equal(un.code, 0, un.stderr)
  t.match(un.stderr, /changed since the install/)
  const s = read(settings)
  t.notMatch(s, /hooks run/, 'no ferry entry left')
  t.ok(s.includes('"theme": "dark"') && s.includes('notify-send done') && s.includes('// the user\'s own'), 'the user\'s edit, hook and comment stay')
})

t.test('a hook archives the session it is about, and only that one', async (t) => {
  const { home, notified } = userHome(t)
  const a = join(home, PROJECT, `${FIXTURE.claudeCode.feature}.jsonl`)
  const r = await ferry(['--home', home, 'hooks', 'run', 'claude-code'], { input: JSON.stringify({ session_id: FIXTURE.claudeCode.feature, transcript_path: a, cwd: '/home/dev/demo-app', hook_event_name: 'Stop' }) })
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stdout + r.stderr, '', 'nothing on the agent\'s terminal')
  t.ok(await eventually(async () => (await archived(home)).includes(`claude-code:${FIXTURE.claudeCode.feature}`)), 'the Claude Code session is archived')
  const only = await archived(home)
  t.same(only.filter((s) => !s.startsWith(`claude-code:${FIXTURE.claudeCode.feature}`) && !s.includes(FIXTURE.claudeCode.agent)), [], 'no other session (its sub-agent rides along)')

  // Codex passes its payload as the last argument, and ferry runs the user's own notify with it.
  t.equal((await ferry(['--home', home, 'hooks', 'install', '--agent', 'codex'])).code, 0)
  const notify = read(join(home, '.codex', 'config.toml')).match(/^notify = (\[.*\])$/m)![1]!
  const argv = JSON.parse(notify) as string[]
  const payload = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': CODEX, 'turn-id': '1', cwd: '/home/dev/demo-app', 'input-messages': ['hi'], 'last-assistant-message': 'done' })
  const c = await ferry([...argv.slice(2), payload])
  t.equal(c.code, 0, c.stderr)
  t.ok(await eventually(async () => (await archived(home)).includes(`codex:${CODEX}`)), 'the Codex rollout is archived')
  t.ok(await eventually(() => existsSync(notified) && read(notified) === payload), 'the user\'s own notify ran with the payload')
  t.equal((await archived(home)).filter((s) => s.startsWith('codex:')).length, 1, 'one Codex session')
})

t.test('a failing archive does not fail the agent; it is in ferry\'s log', async (t) => {
  const { home } = userHome(t)
  const blocker = join(home, 'not-a-dir')
  writeFileSync(blocker, 'x')
  const a = join(home, PROJECT, `${FIXTURE.claudeCode.feature}.jsonl`)
  const r = await ferry(['--home', home, '--db', join(blocker, 'archive.db'), 'hooks', 'run', 'claude-code'], { input: JSON.stringify({ transcript_path: a }) })
  t.equal(r.code, 0, 'exit 0 to the agent')
  t.equal(r.stdout + r.stderr, '')
  const log = join(home, '.local', 'state', 'ferry', 'hooks.log')
  t.ok(await eventually(() => existsSync(log) && /archive exited [1-9]/.test(read(log))), 'the failure is logged with its exit code')
  t.match(read(log), /not-a-dir/, 'with the archive\'s own error')
  const junk = await ferry(['--home', home, 'hooks', 'run', 'claude-code'], { input: 'not json' })
  t.equal(junk.code, 0, 'a payload without a session: exit 0 too')
  t.match(read(log), /no session in the hook payload/)
})

t.test('the OpenCode plugin archives a session when OpenCode reports it idle', async (t) => {
  const home = makeHome(t)
  const r = await ferry(['--home', home, 'hooks', 'install', '--agent', 'opencode'])
  t.equal(r.code, 0, r.stderr)
  const plugin = join(home, '.config', 'opencode', 'plugin', 'ferry-archive.js')
  t.ok(existsSync(plugin), 'a plugin file in OpenCode\'s global plugin folder')
  const ls = await ferry(['--home', home, 'ls', '--harness', 'opencode', '--json'])
  const id = jsonl(ls.stdout)[0].id
  // The plugin as OpenCode loads it: a module whose exports are plugin functions returning hooks.
  const mod = await import(pathToFileURL(plugin).href)
  const hooks = await mod.FerryArchive({})
  await hooks.event({ event: { type: 'message.updated', properties: {} } })
  await hooks.event({ event: { type: 'session.idle', properties: { sessionID: id } } })
  t.ok(await eventually(async () => (await archived(home)).includes(`opencode:${id}`)), 'the idle session is archived')
  const un = await ferry(['--home', home, 'hooks', 'uninstall', '--agent', 'opencode'])
  t.equal(un.code, 0, un.stderr)
  t.notOk(existsSync(plugin), 'uninstall removes the plugin file it wrote')
})

t.test('agents without a hook, and settings ferry must not write through, are refused', async (t) => {
  const home = makeHome(t)
  const g = await ferry(['--home', home, 'hooks', 'install', '--agent', 'grok'])
  t.equal(g.code, 2)
  t.match(g.stderr, /Grok Build has no hook that ferry can use.*archive --watch/)
  const dots = tempDir(t, 'ferry-dotfiles-')
  const real = join(dots, 'settings.json')
  writeFileSync(real, '{}\n')
  mkdirSync(join(home, '.claude'), { recursive: true })
  symlinkSync(real, join(home, '.claude', 'settings.json'))
  const s = await ferry(['--home', home, 'hooks', 'install', '--agent', 'claude-code'])
  t.equal(s.code, 1)
  t.match(s.stderr, /settings\.json is a symbolic link; ferry does not write through it/)
  t.equal(read(real), '{}\n', 'the file behind the link is untouched')
  t.notMatch(s.stderr, /\n\s+at /, 'no stack trace')
})
