/** Shared bits of the Claude Code tests: contexts over fixture stores, reading and writing streams. */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { createContext, type StoreContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { FerryRecord } from '../../../lib/model.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { claudeCode } from '../../../lib/harness/claude-code/index.js'
import { FIXTURES, tempDir } from '../../helpers.js'

export const FIXTURE_HOME = join(FIXTURES, 'claude-code', 'home')
export const PROJECT = join(FIXTURE_HOME, '.claude', 'projects', '-home-dev-demo-app')
export const FEATURE_ID = '3f1c9a2e-5b7d-4c1e-9a3f-000000000001'
export const DAMAGED_ID = '7c1e4b2d-9f3a-4e5b-8c7d-000000000002'
export const AGENT_ID = 'a1b2c3d4e5f607182'

export function ctxFor(home: string): StoreContext {
  return createContext({ home, storeEnvVars: ['CLAUDE_CONFIG_DIR'], diagnostics: new Diagnostics({ stream: null }) })
}

/** A throwaway copy of the fixture home (tests never touch the committed files). */
export function fixtureCopy(t: { teardown: (fn: () => void) => void }): string {
  const dir = tempDir(t, 'ferry-cc-')
  cpSync(FIXTURE_HOME, dir, { recursive: true })
  return dir
}

export async function readAll(ctx: StoreContext, ref: string, opts: Record<string, unknown> = {}): Promise<FerryRecord[]> {
  const info = await claudeCode.resolve!(ctx, ref)
  if (!info) throw new Error(`not found: ${ref}`)
  const out: FerryRecord[] = []
  for await (const r of claudeCode.read!(ctx, info, opts)) out.push(r as FerryRecord)
  return out
}

export async function writeAll(ctx: StoreContext, records: FerryRecord[], opts: Record<string, unknown> = {}): Promise<WrittenSession[]> {
  const sink = claudeCode.sink!(ctx, opts)
  const written: WrittenSession[] = []
  sink.on('written', (w: WrittenSession) => written.push(w))
  await pipeline(Readable.from(records, { objectMode: true }), sink)
  return written
}

/** Parses a JSONL file's text into objects. */
export function lines(text: string): any[] {
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
}
