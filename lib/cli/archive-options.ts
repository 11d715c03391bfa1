/**
 * Which store is the archive, and what the archive commands share: the
 * registry's harness that holds copies of the others (its id is the
 * `--archive` flag of `ls`, `cat` and `convert`; its `--db` flag names the
 * file), and the stores `ferry archive` may copy.
 */
import { FerryError, UsageError } from '../errors.js'
import { manifest, storeEntries, type HarnessEntry } from '../harness/manifest.js'
import type { Harness } from '../harness/types.js'
import { namedEntries } from './selection.js'

/** The store that holds copies of the others (the archive), from the light manifest: `load()` brings its reader and discovery. */
export function archiveHarness(): HarnessEntry {
  const h = manifest.find((x) => x.holdsCopies)
  if (!h) throw new FerryError('no archive store is registered', { code: 'internal' })
  return h
}

/** The flag that points `ls`, `cat` and `convert` at the archive (`--archive`). */
export function archiveFlag(): string {
  return archiveHarness().id
}

/** The stores `ferry archive` copies: every readable, listable store that is not itself a copy. */
export async function archivableHarnesses(names: unknown): Promise<Harness[]> {
  const all = storeEntries().filter((h) => h.lists && h.reads && !h.holdsCopies)
  let list = namedEntries(names)
  if (list.length === 0) list = all
  for (const h of list) if (!all.includes(h)) throw new UsageError(`${h.name} (${h.id}) cannot be archived (archivable: ${all.map((x) => x.id).join(', ')})`)
  return Promise.all(list.map((h) => h.load()))
}
