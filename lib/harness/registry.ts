/**
 * Every harness ferry knows, by id. Adding a harness: a folder under
 * lib/harness/<id>/ whose index.ts exports a `Harness`, and one line here.
 */
import { UsageError } from '../errors.js'
import type { HarnessId } from '../model.js'
import type { Harness } from './types.js'
import { claudeCode } from './claude-code/index.js'
import { codex } from './codex/index.js'
import { opencode } from './opencode/index.js'
import { grok } from './grok/index.js'
import { cursor } from './cursor/index.js'
import { zcode } from './zcode/index.js'
import { ferry } from './ferry/index.js'

export const harnesses: readonly Harness[] = [claudeCode, codex, opencode, grok, cursor, zcode, ferry]

const byId = new Map<string, Harness>(harnesses.map((h) => [h.id, h]))

export function getHarness(id: string): Harness {
  const h = byId.get(id)
  if (!h) throw new UsageError(`unknown harness "${id}" (known: ${harnesses.map((x) => x.id).join(', ')})`)
  return h
}

export function isHarnessId(id: string): id is HarnessId {
  return byId.has(id)
}

/** Every variable that moves some store; `--home` clears them all. */
export function storeEnvVars(): string[] {
  return harnesses.flatMap((h) => h.envVars)
}
