/** Test helpers for the Grok harness: run reader and writer for real, compare directories. */
// Sinks map tool names through the vocabularies the registry registers.
import '../../../lib/harness/registry.js'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createContext, type StoreContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import { NotWrittenError } from '../../../lib/errors.js'
import type { FerryRecord } from '../../../lib/model.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { grok } from '../../../lib/harness/grok/index.js'
import { FIXTURES, complete } from '../../helpers.js'

export const GROK_FIXTURES = join(FIXTURES, 'grok')

export function ctxFor(root: string): StoreContext {
  return createContext({ home: '/nonexistent-home', roots: { grok: root }, diagnostics: new Diagnostics({ stream: null }) })
}

export async function readAll(ctx: StoreContext, path: string, native = false): Promise<FerryRecord[]> {
  const info = await grok.resolve!(ctx, path)
  if (!info) throw new Error(`no session at ${path}`)
  const out: FerryRecord[] = []
  for await (const r of grok.read!(ctx, info, { native })) out.push(r as FerryRecord)
  return out
}

/** Writes through the Grok sink; a stream with sessions not written (the sink policy) resolves with them in `rejected`. */
export async function writeAll(
  ctx: StoreContext,
  records: FerryRecord[],
  opts: { out?: string; force?: boolean } = {},
): Promise<{ written: WrittenSession[]; errors: unknown[]; rejected?: NotWrittenError }> {
  const sink = grok.sink!(ctx, opts)
  const written: WrittenSession[] = []
  const errors: unknown[] = []
  sink.on('written', (w: WrittenSession) => written.push(w))
  sink.on('session-error', (e: unknown) => errors.push(e))
  try {
    await pipeline(Readable.from(complete(records), { objectMode: true }), sink)
  } catch (err) {
    if (!(err instanceof NotWrittenError)) throw err
    return { written, errors, rejected: err }
  }
  return { written, errors }
}

/** Every file under dir (relative path → bytes), optionally leaving some out. */
export function tree(dir: string, skip: RegExp = /^$/): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name
      if (skip.test(rel)) continue
      if (e.isDirectory()) walk(rel)
      else out.set(rel, readFileSync(join(dir, rel)))
    }
  }
  if (statSync(dir).isDirectory()) walk('')
  return out
}

/** Records without what legitimately differs between two reads of different dirs (ids, sid, locator, native). */
export function modelled(recs: FerryRecord[]): unknown[] {
  return recs.map((r) => {
    const c: any = structuredClone(r)
    delete c.sid
    delete c.id
    delete c.native
    if (c.kind === 'session') {
      delete c.native_id
      delete c.source
    }
    return c
  })
}
