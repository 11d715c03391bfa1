// Helpers of the conversion fidelity tests (fidelity.test.ts, issue41.test.ts, issue41-scenario.test.ts): convert a
// session of a fixture home into a target, read the written session back as the target's client would find it.
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writable } from '../../lib/harness/registry.js'
import { collect, context, open, pipeline, sink } from '../../lib/index.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { tempDir } from '../kit.js'
// @ts-ignore plain JS fixture builder: plays `opencode import`
import { createDb, insertDocument } from '../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore plain JS fixture builder: plays `kilo import`
import { landDocuments as landKilo } from '../../fixtures/kilo/kilo-db.mjs'

export type Rec = Record<string, any>

export const TARGETS = writable().filter((h) => h.kind === 'store' && !h.holdsCopies).map((h) => h.id)

export const textOf = (b: Rec): string => (b.type === 'text' ? b.text : b.type === 'tool_result' ? (typeof b.content === 'string' ? b.content : b.content.map((p: Rec) => (p.type === 'text' ? p.text : '')).join('')) : '')
export const msgText = (m: Rec): string => m.blocks.map(textOf).join('\n')

export async function convertIn(home: string, sid: string, to: string, out: string): Promise<Rec[]> {
  const ctx = context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const written: Rec[] = []
  const s = sink(to as never, { ctx, out })
  s.on('written', (w: Rec) => written.push(w))
  await pipeline(await open(sid, { ctx }), s)
  return written
}

/** Everything a conversion wrote, read back (OpenCode's and Kilo's documents imported first, as their import commands do; Claude Code sub-agents come with their parent's file). */
export async function readAllBack(t: Tap.Test, to: string, written: Rec[]): Promise<Rec[]> {
  const quiet = (h: string) => context({ home: h, diagnostics: new Diagnostics({ stream: null }) })
  let recs: Rec[]
  if (to === 'opencode') {
    const h = tempDir(t)
    mkdirSync(join(h, '.local', 'share', 'opencode'), { recursive: true })
    const db = createDb(join(h, '.local', 'share', 'opencode', 'opencode.db'))
    for (const w of written) insertDocument(db, JSON.parse(readFileSync(w.path, 'utf8')))
    db.close()
    recs = (await collect(await open(`opencode:${written[0].id}`, { ctx: quiet(h), native: false }))) as Rec[]
  } else if (to === 'kilo') {
    const h = tempDir(t)
    landKilo(written.map((w) => w.path), join(h, '.local', 'share', 'kilo'))
    recs = (await collect(await open(`kilo:${written[0].id}`, { ctx: quiet(h), native: false }))) as Rec[]
  } else recs = (await collect(await open(written[0].path, { ctx: quiet(tempDir(t)), native: false }))) as Rec[]
  return recs
}

/** The main session a conversion wrote, read back. */
export async function readBack(t: Tap.Test, to: string, written: Rec[]): Promise<Rec[]> {
  const recs = await readAllBack(t, to, written)
  const header = recs.find((r) => r.kind === 'session' && !r.parent) ?? recs.find((r) => r.kind === 'session')!
  return recs.filter((r) => r.sid === header.sid)
}

export const typed = (recs: Rec[], s: string) => recs.filter((r) => r.kind === 'message' && !r.context && msgText(r).includes(s))
export const at = (recs: Rec[], s: string) => recs.indexOf(typed(recs, s)[0])
export const results = (recs: Rec[]) => recs.filter((r) => r.kind === 'message').flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_result'))
export const uses = (recs: Rec[]) => recs.filter((r) => r.kind === 'message').flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_use'))
export const resultOf = (recs: Rec[], pred: (u: Rec) => boolean) => {
  const u = uses(recs).find(pred)
  return u && results(recs).filter((r) => r.tool_use_id === u.id)
}

/** Every call answered by exactly one result. */
export function oneResultEach(t: Tap.Test, recs: Rec[], where: string): void {
  const rs = results(recs)
  for (const u of uses(recs)) t.equal(rs.filter((r) => r.tool_use_id === u.id).length, 1, `${where}: call ${u.name} answered once`)
}
