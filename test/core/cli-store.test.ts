// The CLI over the bundled sample stores (fixtures/home): listing filters,
// --from, transform flags in every accepted form, and the quickstart tour.
import t from 'tap'
import { listable, writable } from '../../lib/harness/registry.js'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')

t.test('ls filters by harness, cwd and date', async (t) => {
  const all = jsonl((await ferry(['--home', HOME, 'ls', '--json'])).stdout)
  t.equal(all.length, listable().filter((h) => h.read).length, 'one sample per listable harness')
  const codex = jsonl((await ferry(['--home', HOME, 'ls', '--json', '--harness', 'codex'])).stdout)
  t.same(codex.map((s) => s.harness), ['codex'])
  t.equal(jsonl((await ferry(['--home', HOME, 'ls', '--json', '--cwd', '/home/dev'])).stdout).length, all.length, 'every sample is below /home/dev')
  t.equal((await ferry(['--home', HOME, 'ls', '--json', '--cwd', '/home/dev/demo'])).stdout, '', 'a name prefix is not a parent directory')
  const since = jsonl((await ferry(['--home', HOME, 'ls', '--json', '--since', '2026-11-10'])).stdout)
  // Samples dated before 2026-11-10 (claude-code, codex) are left out; Cursor's transcript carries no
  // times, so its date is the file's (the checkout's) and it is always recent.
  t.same(since.map((s) => s.harness).sort(), ['cursor', 'gemini', 'grok', 'opencode', 'qwen', 'zcode'], 'only the newer samples')
  for (const s of since) t.ok(Date.parse(s.updated_at ?? s.created_at) >= Date.parse('2026-11-10'))
  const bad = await ferry(['--home', HOME, 'ls', '--since', 'yesterday-ish'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--since: not a date/)
  const table = await ferry(['--home', HOME, 'ls'])
  t.match(table.stdout, /^HARNESS\s+ID\s+UPDATED/)
})

t.test('cat --from reads every session of a harness', async (t) => {
  const r = await ferry(['--home', HOME, 'cat', '--from', 'grok', '--from', 'codex', '--no-native'])
  t.equal(r.code, 0, r.stderr)
  const sids = jsonl(r.stdout).filter((x) => x.kind === 'session').map((x) => x.sid.split(':')[0])
  t.same(sids.sort(), ['codex', 'grok'])
  t.notMatch(r.stdout, /"native":\{/, '--no-native drops source text')
  const both = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--from', 'grok'])
  t.equal(both.code, 2, 'REFs and --from together is a usage error')
})

t.test('transform flags: bare, quoted options, =options, in the order given', async (t) => {
  const bare = await ferry(['--home', HOME, 'cat', '--redact', 'codex:019a3c1e', '--no-native'])
  t.equal(bare.code, 0, `a bare flag before a REF does not swallow it: ${bare.stderr}`)
  t.equal(jsonl(bare.stdout).find((x) => x.kind === 'session').redacted, true)
  const quoted = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--no-native', '--truncate', '--tool-output 10'])
  const eq = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--no-native', '--truncate=--tool-output=10'])
  t.equal(quoted.code, 0, quoted.stderr)
  const cut = (out: string) => jsonl(out).filter((x) => x.kind === 'message').flatMap((m) => m.blocks).filter((b) => b.type === 'tool_result' && b.truncated)
  t.ok(cut(quoted.stdout).length > 0, 'tool output cut')
  t.same(cut(quoted.stdout), cut(eq.stdout), 'both forms mean the same')
  const wrong = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--truncate', '--tool-outptu 10'])
  t.equal(wrong.code, 2, 'an unknown transform option is a usage error')
})

t.test('quickstart converts the samples into every other harness', async (t) => {
  const out = join(tempDir(t), 'out')
  const r = await ferry(['quickstart', '--samples', '--out', out], { timeout: 120_000 })
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /using the bundled sample stores/)
  // Every sample (one per listable harness) into every other writable harness, from the registry.
  const sources = listable().filter((h) => h.read).length
  const n = sources * (writable().filter((h) => !h.holdsCopies).length - 1)
  t.match(r.stdout, new RegExp(`${n} conversions written, 0 failed`))
  t.ok(existsSync(join(out, '.claude', 'projects')))
  t.ok(existsSync(join(out, 'interchange')))
  const ls = jsonl((await ferry(['--home', out, 'ls', '--json', '--all'])).stdout)
  const found = new Set(ls.map((s) => s.harness))
  for (const h of ['claude-code', 'codex', 'grok', 'cursor', 'zcode']) t.ok(found.has(h), `the converted ${h} sessions are discoverable`)
})
