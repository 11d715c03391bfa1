/** Shared helpers for the Codex tests: real files, real zstd, the real source and sink. */
// Sinks map tool names through the vocabularies the registry registers.
import '../../../lib/harness/registry.js'
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createContext, type StoreContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { FerryRecord } from '../../../lib/model.js'
import { codex } from '../../../lib/harness/codex/index.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { FIXTURES, tempDir } from '../../helpers.js'

export const CODEX_FIX = join(FIXTURES, 'codex')
export const CLASSIC_ID = '019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b'
export const CODEMODE_ID = '019a4a2b-1000-7abc-8def-0123456789ab'
export const LEGACY_ID = '5973b6c0-94b8-487b-a530-2aeb6098ae0e'
export const ARCHIVED_ID = '0199a0b1-2c3d-7e4f-8a5b-6c7d8e9f0a1b'

export function ctxFor(home: string): StoreContext {
  return createContext({ home, diagnostics: new Diagnostics({ stream: null }) })
}

/** A fake HOME holding a copy of one fixture store (fixtures/codex/<name>/.codex). */
export function homeWith(t: { teardown: (fn: () => void) => void }, ...names: string[]): string {
  const home = tempDir(t, 'ferry-codex-')
  for (const n of names) cpSync(join(CODEX_FIX, n), home, { recursive: true })
  return home
}

export function rollouts(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (/rollout-.*\.jsonl(\.zst)?$/.test(e.name)) out.push(p)
    }
  }
  try {
    statSync(dir)
    walk(dir)
  } catch {
    /* none */
  }
  return out.sort()
}

export function zstd(file: string, keep = true): string {
  execFileSync('zstd', ['-q', '-3', '-f', ...(keep ? ['-k'] : ['--rm']), file])
  return `${file}.zst`
}

export async function readAll(ctx: StoreContext, ref: string, opts: { native?: boolean } = {}): Promise<{ recs: FerryRecord[]; error?: any }> {
  const info = await codex.resolve!(ctx, ref)
  if (!info) throw new Error(`not found: ${ref}`)
  const recs: FerryRecord[] = []
  try {
    for await (const r of codex.read!(ctx, info, opts)) recs.push(r as FerryRecord)
    return { recs }
  } catch (error) {
    return { recs, error }
  }
}

export async function writeAll(ctx: StoreContext, recs: FerryRecord[], opts: Record<string, unknown> = {}): Promise<WrittenSession[]> {
  const sink = codex.sink!(ctx, opts)
  const written: WrittenSession[] = []
  sink.on('written', (w: WrittenSession) => written.push(w))
  await pipeline(Readable.from(recs), sink)
  return written
}
