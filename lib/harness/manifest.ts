/**
 * Every harness ferry knows, as the CLI's parser and short commands see it:
 * each folder's light facts (its meta.ts: id, name, kind, store, flags,
 * vocabulary, which parts it has) and a `load()` that brings the harness
 * itself (readers, writers, discovery) on first use. `ferry search`,
 * `ferry ls --archive`, `--help` and every usage error read this list alone,
 * so they compile no harness code (docs/performance.md, "Harness facts
 * apart from harness code (issue #49)"); registry.ts loads them all.
 *
 * Adding a harness: its folder lib/harness/<id>/ (meta.ts, index.ts, ...)
 * and one line in the list below. Everything that names harnesses (ids,
 * `--to` choices, help, the `--home` variable list, the test matrix) is
 * derived from this list.
 */
import { didYouMean, UsageError } from '../errors.js'
import { registerVocabularies } from '../vocabulary/registry.js'
import type { StoreContext } from '../context.js'
import type { Flags, Harness, HarnessMeta } from './types.js'
import { meta as claudeCode } from './claude-code/meta.js'
import { meta as codex } from './codex/meta.js'
import { meta as opencode } from './opencode/meta.js'
import { meta as grok } from './grok/meta.js'
import { meta as cursor } from './cursor/meta.js'
import { meta as zcode } from './zcode/meta.js'
import { meta as copilot } from './copilot/meta.js'
import { meta as pi } from './pi/meta.js'
import { meta as gemini } from './gemini/meta.js'
import { meta as qwen } from './qwen/meta.js'
import { meta as kilo } from './kilo/meta.js'
import { meta as ferry } from './ferry/meta.js'
import { meta as archive } from './archive/meta.js'

/** One harness as the parser sees it: its meta, what it has, and `load()` for the rest. */
export interface HarnessEntry extends HarnessMeta {
  holdsCopies: boolean
  readFlags: Flags
  writeFlags: Flags
  /** Whether the harness has a reader, a sink, a discovery (as `Boolean(h.read)` etc. of the harness). */
  reads: boolean
  writes: boolean
  lists: boolean
  /** Shorthand for `store.root(ctx)`, as the harness's. */
  root(ctx: StoreContext): string
  /** The harness itself (its code loaded on the first call). */
  load(): Promise<Harness>
}

// Each harness's flags are typed by its own declaration; here they are Flags (the harness is checked against its id in registry.ts).
function entry<const M extends HarnessMeta<string, Flags, Flags>>(meta: M, load: () => Promise<{ id: M['id'] }>): HarnessEntry & { id: M['id'] } {
  return {
    ...meta,
    holdsCopies: Boolean(meta.holdsCopies),
    readFlags: meta.readFlags ?? {},
    writeFlags: meta.writeFlags ?? {},
    reads: meta.parts.includes('read'),
    writes: meta.parts.includes('sink'),
    lists: meta.parts.includes('discover'),
    root: (ctx) => meta.store.root(ctx),
    load: load as unknown as () => Promise<Harness>,
  }
}

// In the order `--help` lists them. Each harness's code is its own import, but the bundle keeps all of it in one
// chunk (scripts/bundle.mjs, `harnessChunk`).
const list = [
  entry(claudeCode, async () => (await import('./claude-code/index.js')).claudeCode),
  entry(codex, async () => (await import('./codex/index.js')).codex),
  entry(opencode, async () => (await import('./opencode/index.js')).opencode),
  entry(grok, async () => (await import('./grok/index.js')).grok),
  entry(cursor, async () => (await import('./cursor/index.js')).cursor),
  entry(zcode, async () => (await import('./zcode/index.js')).zcode),
  entry(copilot, async () => (await import('./copilot/index.js')).copilot),
  entry(pi, async () => (await import('./pi/index.js')).pi),
  entry(gemini, async () => (await import('./gemini/index.js')).gemini),
  entry(qwen, async () => (await import('./qwen/index.js')).qwen),
  entry(kilo, async () => (await import('./kilo/index.js')).kilo),
  entry(ferry, async () => (await import('./ferry/index.js')).ferry),
  entry(archive, async () => (await import('./archive/index.js')).archive),
] as const

/** A registered harness id. */
export type HarnessId = (typeof list)[number]['id']

export const manifest: readonly HarnessEntry[] = list

const byId = new Map<string, HarnessEntry>(manifest.map((h) => [h.id, h]))

registerVocabularies(manifest.map((h) => [h.id, h.tools]))

export function isHarnessId(id: string): id is HarnessId {
  return byId.has(id)
}

/** The entry of a harness id; an unknown one is a usage error with a suggestion. */
export function harnessEntry(id: string): HarnessEntry {
  const h = byId.get(id)
  if (!h) throw new UsageError(`unknown harness "${id}"${didYouMean(id, manifest.map((x) => x.id))} (known: ${manifest.map((x) => x.id).join(', ')})`)
  return h
}

/** Entries of the harnesses that keep sessions in a store (every kind but the stream). */
export const storeEntries = (): HarnessEntry[] => manifest.filter((h) => h.kind === 'store')
/** Entries of the harnesses that can be read, written, listed. */
export const readableEntries = (): HarnessEntry[] => manifest.filter((h) => h.reads)
export const writableEntries = (): HarnessEntry[] => manifest.filter((h) => h.writes)
export const listableEntries = (): HarnessEntry[] => manifest.filter((h) => h.lists && !h.holdsCopies)

/** Every variable that moves some store; `--home` clears them all. */
export function storeEnvVars(): string[] {
  return manifest.flatMap((h) => h.store.envVars)
}

/** One line for help texts: which harnesses read and write, which are not implemented yet. */
export function harnessSummary(): string {
  const ready = manifest.filter((h) => h.reads || h.writes).map((h) => (h.kind === 'stream' ? `${h.id} (the interchange stream)` : h.id))
  const notYet = manifest.filter((h) => !h.reads && !h.writes).map((h) => h.id)
  return `Harnesses: ${ready.join(', ')}${notYet.length ? `; known, not implemented yet: ${notYet.join(', ')}` : ''}.`
}
