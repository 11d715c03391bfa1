// #12 item 7 / #11 defect 13: a record that parses but has the wrong shape
// (a field missing, null, of another type, anywhere down to a block's part)
// never surfaces as a JavaScript TypeError in any writer or transform: it is
// a located `ferry:bad-record` (file:line), the good records around it come
// through, exit 1. A seeded fast-check run mutates every kind of record;
// each command runs once over all the mutants (one session each).
import t from 'tap'
import fc from 'fast-check'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDb as createZCodeDb } from '../../fixtures/zcode/zcode-db.mjs'
import { ferry, tempDir } from '../kit.js'

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

const TS = '2026-11-01T00:00:00.000Z'
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** One of each record shape a writer or transform dereferences, for session `sid`. */
function templates(sid: string): Array<{ [k: string]: Json }> {
  return [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: sid.slice(6), cwd: '/home/dev/app', title: 'a title', created_at: TS, parent: null },
    { kind: 'message', sid, id: `${sid}:mx`, role: 'assistant', ts: TS, model: 'm', blocks: [
      { type: 'text', text: 'hello' },
      { type: 'thinking', text: 'hmm', signature: 'sig' },
      { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'ls -la', description: 'list' } },
    ], usage: { input_tokens: 1, output_tokens: 2 }, stop_reason: 'tool_use' },
    { kind: 'message', sid, id: `${sid}:mr`, role: 'user', ts: TS, blocks: [
      { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'out' }, { type: 'image', mime: 'image/png', data: PNG }], is_error: false },
      { type: 'image', mime: 'image/png', data: PNG },
      { type: 'file', mime: 'text/plain', name: 'a.txt', data: 'aGk=' },
    ] },
    { kind: 'boundary', sid, id: `${sid}:bx`, type: 'compaction', ts: TS, summary: 'so far', trigger: 'auto' },
    { kind: 'native', sid, id: `${sid}:nx`, native_type: 'claude-code/file-history-snapshot', ts: TS, native: { format: 'claude-code/jsonl@2.1.332', line: 3, raw: '{}' } },
    { kind: 'end', sid, id: `${sid}:end`, complete: true, title: 'a title', updated_at: TS, warnings: [] },
  ]
}

/** Every path to a value in `v` (object keys and array indices). */
function paths(v: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (v === null || typeof v !== 'object') return [at]
  const kids = Array.isArray(v) ? v.map((x, i) => paths(x, [...at, i])) : Object.entries(v).map(([k, x]) => paths(x, [...at, k]))
  return [at, ...kids.flat()]
}

const DELETE = Symbol('delete')
function mutate(rec: { [k: string]: Json }, path: Array<string | number>, value: Json | typeof DELETE): { [k: string]: Json } {
  const copy = structuredClone(rec)
  let o: any = copy
  for (const k of path.slice(0, -1)) o = o[k]
  const last = path[path.length - 1]!
  if (value === DELETE) Array.isArray(o) ? o.splice(Number(last), 1) : delete o[last]
  else o[last] = value
  return copy
}

const replacement = fc.oneof(
  fc.constant<typeof DELETE>(DELETE),
  fc.constantFrom<Json>(null, 0, -1, 1e300, true, '', 'x', [], {}, [null], { type: 'text' }, { kind: 'message' }, 'not-a-date'),
)

t.test('no writer or transform throws a TypeError on a mis-shaped record', async (t) => {
  const dir = tempDir(t)
  const base = templates('ferry:base')
  const mutations = fc.sample(
    fc.integer({ min: 0, max: base.length - 1 }).chain((which) => fc.tuple(fc.constant(which), fc.constantFrom(...paths(base[which]!).filter((p) => p.length > 0 && p[0] !== 'kind')), replacement)),
    { seed: 1211, numRuns: 60 },
  )
  const lines: string[] = [JSON.stringify({ kind: 'stream', ferry: '1.0', producer: 'test', created_at: TS })]
  const good: string[] = []
  mutations.forEach(([which, path, value], i) => {
    const sid = `ferry:s${String(i).padStart(3, '0')}`
    const recs = templates(sid)
    const g = { kind: 'message', sid, id: `${sid}:good`, role: 'user', ts: TS, blocks: [{ type: 'text', text: `good ${i}` }] }
    good.push(g.id)
    // A mutated header (or end) stands in its place; any other mutant sits between good records.
    const out = recs.map((r, k) => (k === which ? mutate(r, path, value) : r))
    out.splice(1, 0, g)
    lines.push(...out.map((r) => JSON.stringify(r)))
  })
  const input = join(dir, 'mutants.jsonl')
  writeFileSync(input, lines.join('\n') + '\n'); if (process.env.KEEP_MUTANTS) writeFileSync(process.env.KEEP_MUTANTS, lines.join('\n') + '\n')

  const typeError = /Cannot read propert|is not a function|is not iterable|Cannot convert|undefined or null|of undefined|of null|\binternal\b|\n\s+at /
  const check = (t: Tap.Test, what: string, r: { code: number | null; stdout: string; stderr: string }, keepsGood: boolean) => {
    t.notMatch(r.stderr, typeError, `${what}: no TypeError, no internal error, no stack trace`)
    t.ok(r.code === 0 || r.code === 1, `${what}: exit 0 or 1 (got ${r.code})`)
    for (const line of r.stderr.trim().split('\n').filter((l) => /^ferry: error: ferry:bad-record/.test(l) && !/suppressed/.test(l))) t.match(line, /^ferry: error: ferry:bad-record: .*mutants\.jsonl:\d+: /, `${what}: located`)
    if (keepsGood) {
      const missing = good.filter((id) => !r.stdout.includes(`"${id}"`))
      t.same(missing, [], `${what}: every good record comes through`)
    }
  }

  for (const [name, args, keepsGood] of [
    ['cat', ['cat', input], true],
    ['redact', ['redact', input], true],
    ['truncate', ['truncate', '--text', '3', '--tool-output', '2', input], true],
    ['normalize-tools', ['normalize-tools', input], true],
    ['filter', ['filter', '--roles', 'user', input], true],
    ['show', ['show', input], false],
    ['render', ['render', input, '--format', 'md', '--no-redact'], false],
  ] as Array<[string, string[], boolean]>) {
    await t.test(name, async (t) => check(t, name, await ferry(args), keepsGood))
  }
  for (const to of ['claude-code', 'codex', 'opencode', 'grok', 'cursor', 'zcode', 'ferry']) {
    await t.test(`write --to ${to}`, async (t) => {
      const home = join(tempDir(t), 'home')
      if (to === 'zcode') createZCodeDb(join(home, '.zcode', 'cli', 'db', 'db.sqlite')).close()
      const extra = to === 'ferry' ? ['--out', join(home, 'out') + '/'] : []
      check(t, `write --to ${to}`, await ferry(['write', '--to', to, '--home', home, ...extra, input]), false)
    })
  }
})
