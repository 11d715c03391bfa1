import t from 'tap'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { FerryRecord } from '../../../lib/model.js'
import { FIXTURE, kit, tempDir } from '../../kit.js'

const { home: FIXTURE_HOME, project: PROJECT, feature: FEATURE_ID, damaged: DAMAGED_ID } = FIXTURE.claudeCode
const cc = kit('claude-code')

function files(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...files(p))
    else out.push(p)
  }
  return out.sort()
}

t.test('read with native and written back: every file byte for byte', async (t) => {
  const out = tempDir(t)
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID, { native: true })
  const written = await cc.write(cc.ctx(out), recs)
  t.same(written.map((w) => w.id), [FEATURE_ID, 'agent-a1b2c3d4e5f607182'])
  const target = join(out, '.claude', 'projects', '-home-dev-demo-app')
  const src = files(PROJECT).filter((p) => p.includes(FEATURE_ID))
  t.same(files(target).map((p) => relative(target, p)), src.map((p) => relative(PROJECT, p)))
  for (const p of src) t.ok(readFileSync(join(target, relative(PROJECT, p))).equals(readFileSync(p)), relative(PROJECT, p))
  t.equal(statSync(join(target, `${FEATURE_ID}.jsonl`)).mode & 0o777, 0o600, 'transcripts are private, like the client writes them')
})

t.test('a damaged file round-trips minus the torn line it could not read', async (t) => {
  const out = tempDir(t)
  await cc.write(cc.ctx(out), await cc.read(cc.ctx(FIXTURE_HOME), DAMAGED_ID, { native: true }))
  const orig = readFileSync(join(PROJECT, `${DAMAGED_ID}.jsonl`), 'utf8')
  const back = readFileSync(join(out, '.claude', 'projects', '-home-dev-demo-app', `${DAMAGED_ID}.jsonl`), 'utf8')
  t.equal(back, orig.slice(0, orig.lastIndexOf('\n') + 1))
  t.ok(back.includes('\0\0{'), 'the NUL-prefixed line is kept as it was')
})

t.test('an existing session is not overwritten without force', async (t) => {
  const out = tempDir(t)
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), DAMAGED_ID, { native: true })
  await cc.write(cc.ctx(out), recs)
  await t.rejects(cc.write(cc.ctx(out), recs), { code: 'not-written', failures: [{ error: { code: 'exists' } }] })
  await cc.write(cc.ctx(out), recs, { force: true })
  const left = readdirSync(join(out, '.claude', 'projects', '-home-dev-demo-app'))
  t.same(left, [`${DAMAGED_ID}.jsonl`], 'no temp files left behind')
})

/** The modelled content of a stream: what must survive common → Claude Code → common. */
function content(recs: FerryRecord[]): unknown[] {
  return recs
    .filter((r) => r.kind === 'message' || r.kind === 'boundary' || r.kind === 'session')
    .map((r) => {
      const { native: _n, seq: _s, ...rest } = r as FerryRecord & { native?: unknown; seq?: number }
      if (r.kind === 'session') return { ...rest, source: undefined }
      return rest
    })
}

t.test('common → Claude Code → common is a fixpoint after one trip', async (t) => {
  const a = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID)
  const h1 = tempDir(t)
  await cc.write(cc.ctx(h1), a)
  const b = await cc.read(cc.ctx(h1), FEATURE_ID)
  const h2 = tempDir(t)
  await cc.write(cc.ctx(h2), b)
  const c = await cc.read(cc.ctx(h2), FEATURE_ID)
  t.same(content(c), content(b))
  // and the first trip kept the conversation: every typed prompt, answer, call and result
  const conv = (recs: FerryRecord[]) =>
    recs.flatMap((r) =>
      r.kind === 'message' && !r.context && r.role !== 'system'
        ? r.blocks.map((bl) => JSON.stringify(bl.type === 'tool_result' && bl.truncated ? { ...bl, truncated: { ...bl.truncated, ref: undefined } } : bl))
        : [],
    )
  t.same(conv(b), conv(a))
})

t.test('records a transform changed are rewritten in place; untouched lines stay verbatim', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID, { native: true })
  for (const r of recs) {
    if (r.kind === 'message' && r.blocks.some((b) => b.type === 'text' && b.text === 'So what is the fix?')) {
      delete r.native
      r.blocks = [{ type: 'text', text: 'So what is the fix? (edited)' }]
    }
  }
  const out = tempDir(t)
  await cc.write(cc.ctx(out), recs)
  const orig = readFileSync(join(PROJECT, `${FEATURE_ID}.jsonl`), 'utf8').split('\n')
  const back = readFileSync(join(out, '.claude', 'projects', '-home-dev-demo-app', `${FEATURE_ID}.jsonl`), 'utf8').split('\n')
  t.equal(back.length, orig.length, 'no line added or lost (no second title record)')
  const changed = back.map((l, i) => (l === orig[i] ? -1 : i)).filter((i) => i >= 0)
  t.equal(changed.length, 1)
  const was = JSON.parse(orig[changed[0]!]!)
  const now = JSON.parse(back[changed[0]!]!)
  t.equal(now.message.content, 'So what is the fix? (edited)')
  t.equal(now.uuid, was.uuid, 'the entry keeps its uuid')
  t.equal(now.parentUuid, was.parentUuid, 'and its place in the chain')
})
