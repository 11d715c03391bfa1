/**
 * Every harness ferry knows. Adding a harness: a folder lib/harness/<id>/
 * whose index.ts is one `defineHarness({...})` call, and one line in the
 * list below. Everything that names harnesses (ids, `--to` choices, help,
 * the `--home` variable list, the test matrix) is derived from this list.
 */
import { didYouMean, UsageError } from '../errors.js'
import { registerVocabularies } from '../vocabulary/registry.js'
import type { Harness } from './types.js'
import { claudeCode } from './claude-code/index.js'
import { codex } from './codex/index.js'
import { opencode } from './opencode/index.js'
import { grok } from './grok/index.js'
import { gemini } from './gemini/index.js'
import { qwen } from './qwen/index.js'
import { cursor } from './cursor/index.js'
import { zcode } from './zcode/index.js'
import { copilot } from './copilot/index.js'
import { pi } from './pi/index.js'
import { kilo } from './kilo/index.js'
import { ferry } from './ferry/index.js'
import { archive } from './archive/index.js'

const list = [claudeCode, codex, opencode, grok, cursor, zcode, copilot, pi, gemini, qwen, kilo, ferry, archive] as const

/** A registered harness id. */
export type HarnessId = (typeof list)[number]['id']

export const harnesses: readonly Harness[] = list as unknown as readonly Harness[]

const byId = new Map<string, Harness>(harnesses.map((h) => [h.id, h]))

registerVocabularies(harnesses.map((h) => [h.id, h.tools]))

export function isHarnessId(id: string): id is HarnessId {
  return byId.has(id)
}

export function getHarness(id: string): Harness {
  const h = byId.get(id)
  if (!h) throw new UsageError(`unknown harness "${id}"${didYouMean(id, harnesses.map((x) => x.id))} (known: ${harnesses.map((x) => x.id).join(', ')})`)
  return h
}

/** The interchange stream harness (kind `stream`). */
export function streamHarness(): Harness {
  return harnesses.find((h) => h.kind === 'stream')!
}

/** Harnesses that keep sessions in a store (every kind but the stream). */
export function storeHarnesses(): Harness[] {
  return harnesses.filter((h) => h.kind === 'store')
}

/** Harnesses that can be read, written, listed. */
export const readable = (): Harness[] => harnesses.filter((h) => h.read)
export const writable = (): Harness[] => harnesses.filter((h) => h.sink)
export const listable = (): Harness[] => harnesses.filter((h) => h.discover && !h.holdsCopies)

/** Every variable that moves some store; `--home` clears them all. */
export function storeEnvVars(): string[] {
  return harnesses.flatMap((h) => h.store.envVars)
}

/** One line for help texts: which harnesses read and write, which are not implemented yet. */
export function harnessSummary(): string {
  const ready = harnesses.filter((h) => h.read || h.sink).map((h) => (h.kind === 'stream' ? `${h.id} (the interchange stream)` : h.id))
  const notYet = harnesses.filter((h) => !h.read && !h.sink).map((h) => h.id)
  return `Harnesses: ${ready.join(', ')}${notYet.length ? `; known, not implemented yet: ${notYet.join(', ')}` : ''}.`
}
