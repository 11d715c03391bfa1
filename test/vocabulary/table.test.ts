import t from 'tap'
// The harness registry hands each harness's vocabulary to the engine at load.
import '../../lib/harness/registry.js'
import { toCanonical, toNative } from '../../lib/vocabulary/index.js'
import { argvToCommand } from '../../lib/vocabulary/shell.js'
import { parsePatch, lowerPatch } from '../../lib/vocabulary/patch.js'
import type { ToolUseBlock } from '../../lib/model.js'

const use = (name: string, input: unknown): ToolUseBlock => ({ type: 'tool_use', id: 'call_1', name, input })

t.test('POSIX quoting of argv', async (t) => {
  t.equal(argvToCommand(['bash', '-lc', 'npm test && echo "ok"']), 'npm test && echo "ok"')
  t.equal(argvToCommand(['echo', 'a b', "it's", '']), `echo 'a b' 'it'\\''s' ''`)
  t.equal(argvToCommand(['ls', '-la', '/tmp/x.y']), 'ls -la /tmp/x.y')
  t.equal(argvToCommand(['rg', '$HOME', 'a;b']), `rg '$HOME' 'a;b'`)
})

t.test('codex shell argv → Bash with native_input', async (t) => {
  const b = toCanonical('codex', use('shell', { command: ['rg', '-n', 'foo bar'], workdir: '/w', timeout_ms: 5000 }))
  t.equal(b.name, 'Bash')
  t.equal(b.native_name, 'shell')
  t.same(b.input, { command: `rg -n 'foo bar'`, timeout: 5000, workdir: '/w' })
  t.same(b.native_input, { command: ['rg', '-n', 'foo bar'], workdir: '/w', timeout_ms: 5000 })
  const c = toCanonical('codex', use('shell', { command: ['bash', '-lc', 'npm test | tail'] }))
  t.same(c.input, { command: 'npm test | tail' })
  // idempotent
  t.equal(toCanonical('codex', b), b)
})

t.test('codex exec_command, update_plan, code-mode exec, unknown and mcp', async (t) => {
  const e = toCanonical('codex', use('exec_command', { cmd: 'sed -n 1,20p a.ts', workdir: '/w', yield_time_ms: 1000 }))
  t.same([e.name, e.input], ['Bash', { command: 'sed -n 1,20p a.ts', workdir: '/w' }])
  t.ok(e.native_input)
  const p = toCanonical('codex', use('update_plan', { explanation: 'x', plan: [{ step: 'Read code', status: 'completed' }, { step: 'Fix', status: 'in_progress' }] }))
  t.equal(p.name, 'TodoWrite')
  t.same(p.input, { todos: [{ content: 'Read code', status: 'completed', activeForm: 'Read code' }, { content: 'Fix', status: 'in_progress', activeForm: 'Fix' }] })
  const x = use('exec', 'const r = await tools.exec_command({cmd: "ls"})')
  t.equal(toCanonical('codex', x), x, 'code-mode exec stays native')
  const m = use('mcp__github__create_issue', { title: 't' })
  t.equal(toCanonical('codex', m), m)
  const u = use('frobnicate', { a: 1 })
  t.equal(toCanonical('opencode', u), u)
  t.equal(toCanonical('nonesuch', u), u)
  const bad = use('shell', { command: 42 })
  t.equal(toCanonical('codex', bad), bad, 'unexpected shape stays native')
})

t.test('codex apply_patch lowering', async (t) => {
  const add = '*** Begin Patch\n*** Add File: src/a.ts\n+export const a = 1\n+\n+// end\n*** End Patch'
  const w = toCanonical('codex', use('apply_patch', add))
  t.equal(w.name, 'Write')
  t.same(w.input, { file_path: 'src/a.ts', content: 'export const a = 1\n\n// end\n' })
  t.equal(w.native_input, add)
  const upd = '*** Begin Patch\n*** Update File: m.ts\n@@\n const x = 1\n-const y = Math.floor(x)\n+const y = Math.round(x)\n*** End Patch\n'
  const e = toCanonical('codex', use('apply_patch', { input: upd }))
  t.equal(e.name, 'Edit')
  t.same(e.input, { file_path: 'm.ts', old_string: 'const x = 1\nconst y = Math.floor(x)', new_string: 'const x = 1\nconst y = Math.round(x)' })
  const two = '*** Begin Patch\n*** Update File: m.ts\n@@ function f\n-a\n+b\n@@\n-c\n+d\n*** End Patch'
  const ap = toCanonical('codex', use('apply_patch', two))
  t.equal(ap.name, 'ApplyPatch')
  t.same(ap.input, { patch: two, files: ['m.ts'] })
  const hdr = '*** Begin Patch\n*** Update File: m.ts\n@@ class A\n-a\n+b\n*** End Patch'
  t.equal(toCanonical('codex', use('apply_patch', hdr)).name, 'ApplyPatch', 'an @@ anchor is not exact as Edit')
  const mv = '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-a\n+b\n*** End Patch'
  t.same(toCanonical('codex', use('apply_patch', mv)).input, { patch: mv, files: ['a.ts', 'b.ts'] })
  t.equal(toCanonical('codex', use('apply_patch', 'garbage')).name, 'ApplyPatch')
  t.same(lowerPatch(parsePatch('*** Begin Patch\n*** Delete File: x\n*** End Patch')!), null)
})

t.test('opencode lowercase + camelCase, webfetch seconds', async (t) => {
  const e = toCanonical('opencode', use('edit', { filePath: '/a.ts', oldString: 'x', newString: 'y', replaceAll: true }))
  t.same([e.name, e.native_name, e.input, e.native_input], ['Edit', 'edit', { file_path: '/a.ts', old_string: 'x', new_string: 'y', replace_all: true }, undefined])
  const w = toCanonical('opencode', use('webfetch', { url: 'https://x', format: 'text', timeout: 30 }))
  t.same(w.input, { url: 'https://x', format: 'text', timeout: 30000 })
  t.same(w.native_input, { url: 'https://x', format: 'text', timeout: 30 })
  const g = toCanonical('opencode', use('grep', { pattern: 'x', include: '*.ts' }))
  t.same(g.input, { pattern: 'x', glob: '*.ts' })
  const td = toCanonical('opencode', use('todowrite', { todos: [{ content: 'a', status: 'pending', priority: 'high', id: '1' }] }))
  t.same(td.input, { todos: [{ content: 'a', status: 'pending', activeForm: 'a' }] })
  t.ok(td.native_input)
  const sk = toCanonical('opencode', use('skill', { name: 'pdf' }))
  t.same([sk.name, sk.input], ['Skill', { skill: 'pdf' }])
  // same-harness round trip restores the native call exactly
  for (const b of [e, w, g, td, sk]) {
    const n = toNative('opencode', b, 'opencode')
    t.equal(n.name, b.native_name)
  }
  t.same(toNative('opencode', e, 'opencode').input, { filePath: '/a.ts', oldString: 'x', newString: 'y', replaceAll: true })
  t.same(toNative('opencode', g, 'opencode').input, { pattern: 'x', include: '*.ts' })
})

t.test('cursor and grok', async (t) => {
  const s = toCanonical('cursor', use('Shell', { command: 'npm test', cwd: '/home/dev/demo-app' }))
  t.same([s.name, s.input], ['Bash', { command: 'npm test', workdir: '/home/dev/demo-app' }])
  const r = toCanonical('cursor', use('Read', { path: '/a/package.json' }))
  t.same([r.name, r.input], ['Read', { file_path: '/a/package.json' }])
  t.same(toNative('cursor', r, 'cursor'), { name: 'Read', input: { path: '/a/package.json' } }, 'same-name rename reversed')
  const sr = toCanonical('cursor', use('StrReplace', { path: '/a', old_string: 'x', new_string: 'y' }))
  t.same([sr.name, sr.input], ['Edit', { file_path: '/a', old_string: 'x', new_string: 'y' }])
  const gr = toCanonical('grok', use('read_file', { target_file: '/p', offset: 3, limit: 10 }))
  t.same([gr.name, gr.input], ['Read', { file_path: '/p', offset: 3, limit: 10 }])
  const rt = toCanonical('grok', use('run_terminal_cmd', { command: 'npm test', description: 'Reproduce' }))
  t.same([rt.name, rt.input], ['Bash', { command: 'npm test', description: 'Reproduce' }])
  const sh = toCanonical('grok', use('Shell', { command: 'ls', block_until_ms: 1500.5 }))
  t.same(sh.input, { command: 'ls' }, 'float block_until_ms is not a timeout')
  t.same(toCanonical('grok', use('Shell', { command: 'ls', block_until_ms: 1500 })).input, { command: 'ls', timeout: 1500 })
  // randomised names: kind fallback only when the arguments are recognisable
  const k = toCanonical('grok', use('zq_41', { command: 'make' }), { kind: 'execute' })
  t.same([k.name, k.native_name, k.input], ['Bash', 'zq_41', { command: 'make' }])
  const k2 = use('zq_41', { qx: 'make' })
  t.equal(toCanonical('grok', k2, { kind: 'execute' }), k2)
  const g = toCanonical('cursor', use('Glob', { glob_pattern: '**/*.ts', target_directory: '/w' }))
  t.same([g.name, g.input], ['Glob', { pattern: '**/*.ts', path: '/w' }])
})

t.test('claude-code and zcode', async (t) => {
  const b = use('Bash', { command: 'ls' })
  t.equal(toCanonical('claude-code', b), b)
  const a = toCanonical('claude-code', use('Agent', { description: 'd', prompt: 'p', subagent_type: 'Explore' }))
  t.same([a.name, a.native_name], ['Task', 'Agent'])
  t.equal(toNative('claude-code', a, 'claude-code').name, 'Agent')
  t.equal(toCanonical('zcode', b), b)
  t.equal(toCanonical('zcode', use('read', { filePath: '/x' })).name, 'Read')
})

t.test('toNative across harnesses', async (t) => {
  const codexShell = use('shell', { command: ['bash', '-lc', 'npm test'], workdir: '/w' })
  t.same(toNative('claude-code', codexShell, 'codex'), { name: 'Bash', input: { command: 'npm test', workdir: '/w' } })
  t.same(toNative('opencode', codexShell, 'codex'), { name: 'bash', input: { command: 'npm test', workdir: '/w' } })
  t.same(toNative('cursor', codexShell, 'codex'), { name: 'Shell', input: { command: 'npm test', cwd: '/w' } })
  t.same(toNative('grok', use('Bash', { command: 'ls', description: 'list' }), 'claude-code'), { name: 'run_terminal_cmd', input: { command: 'ls', description: 'list' } })
  t.same(toNative('codex', use('Bash', { command: 'ls -la', timeout: 10 }), 'claude-code'), { name: 'exec_command', input: { cmd: 'ls -la' } })
  // Claude's Agent → Codex keeps a canonical name codex does not have
  t.equal(toNative('codex', use('Agent', { prompt: 'p' }), 'claude-code').name, 'Task')
  t.equal(toNative('opencode', use('Agent', { prompt: 'p' }), 'claude-code').name, 'task')
  // Edit / Write → apply_patch text
  const w = toNative('codex', use('Write', { file_path: '/w/a.txt', content: 'one\ntwo\n' }), 'claude-code')
  t.same(w, { name: 'apply_patch', input: '*** Begin Patch\n*** Add File: /w/a.txt\n+one\n+two\n*** End Patch', freeform: true })
  const back = toCanonical('codex', use('apply_patch', w.input))
  t.same(back.input, { file_path: '/w/a.txt', content: 'one\ntwo\n' }, 'Write → patch → Write is exact')
  const e = toNative('codex', use('Edit', { file_path: '/w/a.ts', old_string: 'a\nb\nc', new_string: 'a\nB\nc' }), 'claude-code')
  t.equal(e.input, '*** Begin Patch\n*** Update File: /w/a.ts\n@@\n a\n-b\n+B\n c\n*** End Patch')
  t.same(toCanonical('codex', use('apply_patch', e.input)).input, { file_path: '/w/a.ts', old_string: 'a\nb\nc', new_string: 'a\nB\nc' })
  t.equal(toNative('codex', use('Edit', { file_path: 'x', old_string: 'a', new_string: 'b', replace_all: true }), 'claude-code').name, 'Edit', 'replace_all cannot be a patch')
  const oe = toNative('opencode', use('Edit', { file_path: '/a', old_string: 'x', new_string: 'y' }), 'cursor')
  t.same(oe, { name: 'edit', input: { filePath: '/a', oldString: 'x', newString: 'y' } })
  const td = toNative('codex', use('todowrite', { todos: [{ content: 'a', status: 'completed', priority: 'low', id: 'z' }] }), 'opencode')
  t.same(td, { name: 'update_plan', input: { plan: [{ step: 'a', status: 'completed' }] } })
  t.same(toNative('opencode', use('webfetch', { url: 'u', timeout: 30 }), 'opencode'), { name: 'webfetch', input: { url: 'u', timeout: 30 } })
  t.same(toNative('opencode', use('WebFetch', { url: 'u', prompt: 'p', timeout: 4500 }), 'claude-code'), { name: 'webfetch', input: { url: 'u', format: 'markdown', timeout: 5 } })
  const m = use('mcp__fs__read', { p: 1 })
  t.same(toNative('codex', m, 'claude-code'), { name: 'mcp__fs__read', input: { p: 1 } })
  // same-harness: native kept
  const n = toCanonical('codex', use('shell', { command: ['ls'] }))
  t.same(toNative('codex', n, 'codex'), { name: 'shell', input: { command: ['ls'] } })
  const ap = toCanonical('codex', use('apply_patch', '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch'))
  t.same(toNative('codex', ap, 'codex'), { name: 'apply_patch', input: '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch', freeform: true })
})
