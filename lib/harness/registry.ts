/**
 * Every harness ferry knows, loaded: the list is manifest.ts's (one line
 * per harness there), and importing this module loads each one's code.
 * Commands that list, read or write import it; the parser and the short
 * commands read manifest.ts alone (docs/performance.md, "Harness facts
 * apart from harness code (issue #49)").
 */
import { FerryError } from '../errors.js'
import { harnessEntry, manifest } from './manifest.js'
import type { Harness } from './types.js'

// The manifest's answers, for the callers that import the registry.
export { harnessSummary, isHarnessId, storeEnvVars, type HarnessId } from './manifest.js'

// No harness module imports this one (a cycle through this await would never settle): they are loaded here, at once.
export const harnesses: readonly Harness[] = await Promise.all(manifest.map((e) => e.load()))

const byId = new Map<string, Harness>(harnesses.map((h) => [h.id, h]))

// A harness is its meta and its parts (defineHarness); its entry names it by the same id.
for (const [i, h] of harnesses.entries()) {
  if (h.id !== manifest[i]!.id) throw new FerryError(`lib/harness/manifest.ts: the line for ${manifest[i]!.id} loads ${h.id}`, { code: 'internal' })
}

export function getHarness(id: string): Harness {
  return byId.get(harnessEntry(id).id)!
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
