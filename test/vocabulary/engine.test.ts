import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../kit.js'
import { harnesses } from '../../lib/harness/registry.js'
import { as } from '../../lib/vocabulary/build.js'
import { registerVocabularies, toCanonical, toNative, vocabularyOf, type ToolVocabulary } from '../../lib/vocabulary/index.js'
import type { ToolUseBlock } from '../../lib/model.js'

const use = (name: string, input: unknown): ToolUseBlock => ({ type: 'tool_use', id: 'call_1', name, input })

t.test('a new harness is one vocabulary: the engine maps it with no change', async (t) => {
  const acme: ToolVocabulary = {
    rules: {
      run: { canon: 'Bash', keys: { line: 'command' } },
      peek: { canon: 'Read', to: (i) => (typeof i.at === 'string' ? { input: { file_path: i.at } } : null) },
    },
    targets: { Bash: as('run', { command: 'line' }), Read: (i) => ({ name: 'peek', input: { at: i.file_path } }) },
    byHint: (h, input) => (h.kind === 'execute' && typeof input === 'object' && input !== null && 'x' in input ? { name: 'Bash', input: { command: String((input as { x: unknown }).x) } } : null),
    freeform: (name, input) => name === 'run' && typeof input === 'string',
  }
  t.equal(vocabularyOf('acme').targets.Bash, undefined, 'unknown before registration')
  registerVocabularies([['acme', acme]])

  const r = toCanonical('acme', use('run', { line: 'make' }))
  t.same([r.name, r.input, r.native_name, r.native_input], ['Bash', { command: 'make' }, 'run', undefined], 'pure rename, no native copy')
  t.same(toNative('acme', r, 'acme'), { name: 'run', input: { line: 'make' } }, 'same harness: rename reversed')
  const p = toCanonical('acme', use('peek', { at: '/a' }))
  t.same([p.name, p.input, p.native_input], ['Read', { file_path: '/a' }, { at: '/a' }])
  t.same(toCanonical('acme', use('zz_1', { x: 'ls' }), { kind: 'execute' }).input, { command: 'ls' }, 'byHint for an unlisted name')
  t.equal(toCanonical('acme', use('zz_1', { y: 1 }), { kind: 'execute' }).name, 'zz_1', 'byHint declines: stays native')
  t.same(toNative('acme', use('run', 'raw'), 'acme'), { name: 'run', input: 'raw', freeform: true }, 'freeform from the vocabulary')

  // Across registered harnesses, both ways.
  t.same(toNative('acme', use('Bash', { command: 'ls' }), 'claude-code'), { name: 'run', input: { line: 'ls' } })
  t.same(toNative('opencode', use('run', { line: 'ls' }), 'acme'), { name: 'bash', input: { command: 'ls' } })
  t.same(toNative('acme', use('read', { filePath: '/p' }), 'opencode'), { name: 'peek', input: { at: '/p' } })
})

t.test('every registered harness hands the engine its vocabulary', async (t) => {
  for (const h of harnesses) t.equal(vocabularyOf(h.id), h.tools, h.id)
})

t.test('lib/vocabulary names no harness', async (t) => {
  const dir = join(ROOT, 'lib/vocabulary')
  const files: string[] = []
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name))
      else if (e.name.endsWith('.ts')) files.push(join(d, e.name))
    }
  }
  walk(dir)
  t.ok(files.length >= 8, 'engine, registry, types, build, shell, patch, toolsets')
  const ids = harnesses.map((h) => h.id)
  const offences: string[] = []
  for (const f of files) {
    // Comments may name harnesses (provenance); code may not.
    const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
    const rel = relative(ROOT, f)
    for (const id of ids) for (const q of ["'", '"', '`']) if (code.includes(q + id + q)) offences.push(`${rel}: ${q}${id}${q}`)
    if (/from\s+['"][^'"]*\/harness\//.test(code)) offences.push(`${rel}: imports a harness`)
  }
  t.same(offences, [])
})
