/**
 * Which store is the archive, and what the archive commands share: the
 * registry's harness that holds copies of the others (its id is the
 * `--archive` flag of `ls`, `cat` and `convert`; its `--db` flag names the
 * file), and the stores `ferry archive` may copy.
 */
import { FerryError, UsageError } from '../errors.js'
import { getHarness, harnesses, storeHarnesses } from '../harness/registry.js'
import type { Harness } from '../harness/types.js'

/** The store that holds copies of the others (the archive). */
export function archiveHarness(): Harness {
  const h = harnesses.find((x) => x.holdsCopies)
  if (!h) throw new FerryError('no archive store is registered', { code: 'internal' })
  return h
}

/** The flag that points `ls`, `cat` and `convert` at the archive (`--archive`). */
export function archiveFlag(): string {
  return archiveHarness().id
}

/** The stores `ferry archive` copies: every readable, listable store that is not itself a copy. */
export function archivableHarnesses(names: unknown): Harness[] {
  const all = storeHarnesses().filter((h) => h.discover && h.read && !h.holdsCopies)
  if (!Array.isArray(names) || names.length === 0) return all
  const list = names.flatMap((n) => String(n).split(',')).map((n) => getHarness(n.trim()))
  for (const h of list) if (!all.includes(h)) throw new UsageError(`${h.name} (${h.id}) cannot be archived (archivable: ${all.map((x) => x.id).join(', ')})`)
  return list
}
