/**
 * Every harness ferry knows, by id. Adding a harness: a folder under
 * lib/harness/<id>/ whose index.ts exports a `Harness`, and one line here.
 */
import { UsageError } from '../errors.js'
import type { HarnessId } from '../model.js'
import type { Harness } from './types.js'
import type { CliFlag } from './types.js'
import * as claudeCodeMod from './claude-code/index.js'
import * as codexMod from './codex/index.js'
import * as opencodeMod from './opencode/index.js'
import * as grokMod from './grok/index.js'
import * as cursorMod from './cursor/index.js'
import * as zcodeMod from './zcode/index.js'
import * as ferryMod from './ferry/index.js'

type HarnessModule = { readFlags?: CliFlag[]; writeFlags?: CliFlag[] } & Record<string, unknown>

/** A harness module exports its Harness object, and may export readFlags / writeFlags beside it. */
function load(mod: HarnessModule, h: Harness): Harness {
  return { ...h, readFlags: h.readFlags ?? mod.readFlags ?? [], writeFlags: h.writeFlags ?? mod.writeFlags ?? [] }
}

export const harnesses: readonly Harness[] = [
  load(claudeCodeMod, claudeCodeMod.claudeCode),
  load(codexMod, codexMod.codex),
  load(opencodeMod, opencodeMod.opencode),
  load(grokMod, grokMod.grok),
  load(cursorMod, cursorMod.cursor),
  load(zcodeMod, zcodeMod.zcode),
  load(ferryMod, ferryMod.ferry),
]

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
