// The harness contract (contract.ts) applied to every registered harness
// that can be read: one line each, naming its fixture and what genuinely
// differs about its format. A new harness adds one line here and one
// fixture with its contract.json.
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { StoreContext } from '../../lib/context.js'
import { getHarness, readable } from '../../lib/harness/registry.js'
import type { WrittenSession } from '../../lib/harness/types.js'
import { fileTimeout, ROOT } from '../kit.js'
import { contract, type ContractSpec } from './contract.js'
// @ts-ignore plain JS fixture builder: plays `opencode import` (the real client is never run)
import { createDb, insertDocument } from '../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore plain JS fixture builder: replays ZCode's migrations, as ZCode's first run does
import { createDb as createZCodeDb } from '../../fixtures/zcode/zcode-db.mjs'
// @ts-ignore plain JS fixture builder: plays `kilo import` (the real client is never run)
import { landDocuments as landKilo } from '../../fixtures/kilo/kilo-db.mjs'

// Rollout directories and names are in local time; the fixtures were made in UTC.
process.env.TZ = 'UTC'
// Five harnesses, each with real child processes: more than the default per-file timeout.
fileTimeout(t, 20 * 60_000)

/** What `opencode import` does with an export document: its rows land in the database. */
function importDocuments(written: WrittenSession[], ctx: StoreContext): void {
  const db = createDb(join(getHarness('opencode').root(ctx), 'opencode.db'))
  for (const w of written) insertDocument(db, JSON.parse(readFileSync(w.path, 'utf8')))
  db.close()
}

const specs: ContractSpec[] = [
  { harness: 'claude-code', fixture: 'claude-code', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'codex', fixture: 'codex', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'grok', fixture: 'grok', roundTrip: 'bytes', storage: { lines: 'chat_history.jsonl' } },
  {
    harness: 'opencode', fixture: 'opencode', roundTrip: 'records', storage: { sqlite: { table: 'part', pk: 'id', data: 'data' } }, land: importDocuments,
    cannot: {
      'native-round-trip': 'ferry never writes the database: a session goes out as an export document that `opencode import` turns into new rows with new ids (the fixpoint clause covers the content)',
      'resolve-by-path': 'the path is the database that holds every session; it names no single one',
    },
  },
  { harness: 'cursor', fixture: 'cursor', roundTrip: 'bytes', storage: { lines: true }, fixpointIgnores: ['ts'] },
  {
    harness: 'zcode', fixture: 'zcode', roundTrip: 'records', storage: { sqlite: { table: 'part', pk: 'id', data: 'data' } },
    seed: (ctx) => createZCodeDb(join(getHarness('zcode').root(ctx), 'cli', 'db', 'db.sqlite')).close(),
    cannot: {
      'resolve-by-path': 'the path is the database that holds every session; it names a session only when it holds one (test/harness/zcode)',
      'no-overwrite': 'sessions are rows in one shared database: --force replaces them inside one transaction, not a file (test/harness/zcode covers exists, unchanged bytes and force)',
    },
  },
  { harness: 'copilot', fixture: 'copilot', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'pi', fixture: 'pi', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'gemini', fixture: 'gemini', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'qwen', fixture: 'qwen', roundTrip: 'bytes', storage: { lines: true } },
  { harness: 'kilo', fixture: 'kilo', roundTrip: 'records', storage: { sqlite: { table: 'part', pk: 'id', data: 'data' } }, land: (w, ctx) => landKilo(w.map((s) => s.path), getHarness('kilo').root(ctx)), cannot: { 'native-round-trip': 'as OpenCode: written as export documents that `kilo import` turns into new rows', 'resolve-by-path': 'as OpenCode: the path is the database that holds every session' } },
  { harness: 'ferry', fixture: 'ferry', roundTrip: 'records', storage: { lines: true } },
]

// Each harness's contract waits mostly on ferry processes: three at a time keep two cores busy.
t.jobs = 3
for (const spec of specs) contract(t, spec)

t.test('every readable harness has a contract line', async (t) => {
  // The archive holds copies of the other stores' sessions; its own suite is test/archive/.
  t.same(readable().filter((h) => !h.holdsCopies).map((h) => h.id).filter((id) => !specs.some((s) => s.harness === id)), [], 'no readable harness without one')
})

// docs/formats/README.md: one template for every format doc.
const SECTIONS = ['## Layout', '### Discovery', '## Record dissection', '## Mapping to the model', '## Writing', '## Verification against the real client', '## Sources']

t.test('every readable store harness has a format doc in the template', async (t) => {
  for (const h of readable()) {
    if (h.kind === 'stream') {
      t.ok(existsSync(join(ROOT, 'docs', 'stream-format.md')), `${h.id}: the stream is described in docs/stream-format.md`)
      continue
    }
    const path = join(ROOT, 'docs', 'formats', `${h.id}.md`)
    t.ok(existsSync(path), `${h.id}: docs/formats/${h.id}.md`)
    if (!existsSync(path)) continue
    const text = readFileSync(path, 'utf8')
    const at = SECTIONS.map((s) => text.search(new RegExp(`^${s.replace(/[()]/g, '\\$&')}( .*)?$`, 'm')))
    t.same(at.map((i, k) => (i < 0 ? `missing ${SECTIONS[k]}` : 'ok')), SECTIONS.map(() => 'ok'), `${h.id}: every section`)
    t.same([...at].sort((a, b) => a - b), at, `${h.id}: in the template's order`)
    const verification = text.slice(at[5]!, at[6]!)
    t.match(verification, /^Last verified: \d{4}-\d{2}-\d{2}\b/m, `${h.id}: a Last verified date in the verification section`)
    t.equal(text.match(/^Last verified:/gm)?.length, 1, `${h.id}: exactly one Last verified line`)
  }
})
