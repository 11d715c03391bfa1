/** Shared bits of the Claude Code tests: contexts over fixture stores, reading and writing streams. */
// Sinks map tool names through the vocabularies the registry registers.
import '../../../lib/harness/registry.js'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createContext, type StoreContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { FerryRecord } from '../../../lib/model.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { claudeCode } from '../../../lib/harness/claude-code/index.js'
import { complete, FIXTURES, tempDir } from '../../helpers.js'

export const FIXTURE_HOME = join(FIXTURES, 'claude-code', 'home')
export const PROJECT = join(FIXTURE_HOME, '.claude', 'projects', '-home-dev-demo-app')
export const FEATURE_ID = '3f1c9a2e-5b7d-4c1e-9a3f-000000000001'
export const DAMAGED_ID = '7c1e4b2d-9f3a-4e5b-8c7d-000000000002'
export const AGENT_ID = 'a1b2c3d4e5f607182'

export function ctxFor(home: string, opts: { maxLineBytes?: number } = {}): StoreContext {
  return createContext({ home, storeEnvVars: ['CLAUDE_CONFIG_DIR'], diagnostics: new Diagnostics({ stream: null }), ...opts })
}

export const LONG_ID = '5a0b7c3d-1e2f-4a5b-8c6d-000000000005'

/**
 * A three-entry transcript as the client writes it, with a file-history
 * snapshot of about `bytes` as its second line; written into `home`'s store.
 */
export function longLineSession(home: string, bytes: number): string {
  const dir = join(home, '.claude', 'projects', '-home-dev-demo-app')
  mkdirSync(dir, { recursive: true })
  const env = { isSidechain: false, userType: 'external', cwd: '/home/dev/demo-app', sessionId: LONG_ID, version: '2.1.332', gitBranch: 'main' }
  const u = (n: number) => `5a0b7c3d-0000-4000-8000-00000000000${n}`
  const entries = [
    { parentUuid: null, ...env, type: 'user', message: { role: 'user', content: 'Print the log.' }, uuid: u(1), timestamp: '2026-11-04T08:00:00.000Z' },
    { type: 'file-history-snapshot', messageId: u(1), snapshot: { messageId: u(1), trackedFileBackups: { 'build.log': { backupFileName: null, version: 1, content: 'x'.repeat(bytes) } }, timestamp: '2026-11-04T08:00:00.500Z' }, isSnapshotUpdate: false },
    { parentUuid: u(1), ...env, type: 'assistant', message: { id: 'msg_syn_L1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Here it is.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } }, uuid: u(2), timestamp: '2026-11-04T08:00:01.000Z' },
    { parentUuid: u(2), ...env, type: 'user', message: { role: 'user', content: 'Thanks.' }, uuid: u(3), timestamp: '2026-11-04T08:00:02.000Z' },
  ]
  const path = join(dir, `${LONG_ID}.jsonl`)
  writeFileSync(path, entries.map((e) => JSON.stringify(e) + '\n').join(''))
  return path
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
  await pipeline(Readable.from(complete(records), { objectMode: true }), sink)
  return written
}

/** Parses a JSONL file's text into objects. */
export function lines(text: string): any[] {
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
}
