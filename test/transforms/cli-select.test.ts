/**
 * One time parser and one cwd rule for `ls`, `cat --from` and `filter`, as
 * real child processes (issue #10, defect 6: `filter --since 7d` dropped
 * every session, `filter --cwd` was a glob while `ls --cwd` meant "DIR or
 * below").
 */
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')
const DAY = 86400e3

/** An interchange stream of sessions made now: recent and old ones, in several directories. */
function stream(): string {
  const now = Date.now()
  const sessions: Array<[string, number, string]> = [
    ['0199aaaa-0000-7000-8000-000000000001', now - 1 * DAY, '/srv/one/app'],
    ['0199aaaa-0000-7000-8000-000000000002', now - 30 * DAY, '/home/dev/app'],
    ['0199aaaa-0000-7000-8000-000000000003', now - 2 * 3600e3, '/home/dev/app/sub'],
    ['0199aaaa-0000-7000-8000-000000000004', now - 3 * DAY, '/home/dev/app2'],
  ]
  const lines: unknown[] = [{ kind: 'stream', ferry: '1.0', producer: 'test' }]
  for (const [id, t, cwd] of sessions) {
    const sid = `codex:${id}`
    const at = new Date(t).toISOString()
    lines.push({ kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: id, cwd, title: `session in ${cwd}`, created_at: at, updated_at: at })
    lines.push({ kind: 'message', sid, id: `${sid}:m1`, role: 'user', ts: at, blocks: [{ type: 'text', text: 'hello' }] })
    lines.push({ kind: 'end', sid, id: `${sid}:end` })
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
}

const cwds = (out: string): string[] => jsonl(out).filter((r) => r.kind === 'session').map((r) => r.cwd).sort()

let catted: string | null = null

/** `ferry cat FILE | ferry filter ARGS`: the cat runs once, its output feeds every filter. */
async function catFilter(t: { teardown: (fn: () => void) => void; equal: (...a: any[]) => void }, args: string[]) {
  if (catted === null) {
    const file = join(tempDir(t), 'week.jsonl')
    writeFileSync(file, stream())
    const cat = await ferry(['cat', file])
    t.equal(cat.code, 0, cat.stderr)
    catted = cat.stdout
  }
  return ferry(['filter', ...args], { input: catted })
}

t.test('filter --since/--until take spans and ISO dates', async (t) => {
  const week = await catFilter(t, ['--since', '7d'])
  t.equal(week.code, 0, week.stderr)
  t.same(cwds(week.stdout), ['/home/dev/app/sub', '/home/dev/app2', '/srv/one/app'], 'recent sessions kept, the old one dropped')
  const day = await catFilter(t, ['--since', '12h'])
  t.same(cwds(day.stdout), ['/home/dev/app/sub'])
  const older = await catFilter(t, ['--until', '2d'])
  t.same(cwds(older.stdout), ['/home/dev/app', '/home/dev/app2'])
  const iso = await catFilter(t, ['--since', new Date(Date.now() - 7 * DAY).toISOString().slice(0, 10)])
  t.equal(cwds(iso.stdout).length, 3, 'an ISO date')
  const count = await catFilter(t, ['--since', '7d', '--count'])
  t.equal(count.stdout, 'sessions 3\nmessages 3\nrecords 9\n')
})

t.test('filter --since bogus is a usage error, not an empty stream', async (t) => {
  for (const args of [['--since', 'bogus'], ['--until', 'tuesday-ish'], ['--since', 'bogus', '--count']]) {
    const r = await ferry(['filter', ...args], { input: stream() })
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`)
    t.match(r.stderr, new RegExp(`${args[0]}: not a date`))
    t.equal(r.stdout, '')
  }
})

t.test('filter --cwd: a directory or below; a glob when it has glob characters', async (t) => {
  const dir = await catFilter(t, ['--cwd', '/home/dev/app'])
  t.equal(dir.code, 0, dir.stderr)
  t.same(cwds(dir.stdout), ['/home/dev/app', '/home/dev/app/sub'], 'the directory and below, not the sibling app2')
  const glob = await catFilter(t, ['--cwd', '/srv/**/app'])
  t.same(cwds(glob.stdout), ['/srv/one/app'])
  const braces = await catFilter(t, ['--cwd', '/home/dev/{app,app2}'])
  t.same(cwds(braces.stdout), ['/home/dev/app', '/home/dev/app2'], '{a,b}')
  const cls = await catFilter(t, ['--cwd', '/home/dev/app[0-9]'])
  t.same(cwds(cls.stdout), ['/home/dev/app2'], '[…]')
})

t.test('ls --cwd and cat --from --cwd keep their meaning and take the same values', async (t) => {
  const n = async (args: string[]) => {
    const r = await ferry(['--home', HOME, 'ls', '--json', ...args])
    const found = jsonl(r.stdout).length
    // Nothing matched is exit 1 (#46).
    t.equal(r.code, found ? 0 : 1, r.stderr)
    return found
  }
  const all = await n([])
  t.ok(all >= 4)
  t.equal(await n(['--cwd', '/home/dev/demo-app']), all, 'the directory')
  t.equal(await n(['--cwd', '/home/dev']), all, 'below')
  t.equal(await n(['--cwd', '/home/dev/demo']), 0, 'a name prefix is not a parent directory')
  t.equal(await n(['--cwd', '/home/*/demo-app']), all, 'a glob')
  const bad = await ferry(['--home', HOME, 'ls', '--since', 'bogus'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--since: not a date/)
  const from = await ferry(['--home', HOME, 'cat', '--from', 'codex', '--cwd', '/home/dev', '--no-native'])
  t.equal(from.code, 0, from.stderr)
  t.equal(jsonl(from.stdout).filter((r) => r.kind === 'session').length, 1)
  const none = await ferry(['--home', HOME, 'cat', '--from', 'codex', '--cwd', '/home/dev/demo'])
  t.equal(jsonl(none.stdout).filter((r) => r.kind === 'session').length, 0)
})
