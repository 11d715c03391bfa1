/**
 * Turning what a user typed (`codex:0199…`, a path, `-`, a bare id) into a
 * session of a harness.
 */
import { existsSync } from 'node:fs'
import { AmbiguousError, didYouMean, FerryError, UsageError } from '../errors.js'
import type { StoreContext } from '../context.js'
import { getHarness, harnesses, isHarnessId, storeHarnesses, streamHarness } from './registry.js'
import type { Harness, SessionInfo } from './types.js'

export interface ResolvedRef {
  harness: Harness
  session: SessionInfo
}

/** Path claims are tried in this order: the interchange stream first (cheap, specific). */
function claimOrder(): Harness[] {
  return [streamHarness(), ...storeHarnesses()]
}

/**
 * The one id rule, the same for every harness: an exact native id, or any
 * non-empty prefix of one. Exact wins; a prefix that matches several
 * sessions (of one harness, or — without `harness:` — of several) is
 * ambiguous: a usage error listing the candidates.
 */
export async function resolveRef(ctx: StoreContext, ref: string): Promise<ResolvedRef> {
  if (ref === '-') {
    const h = streamHarness()
    return { harness: h, session: (await h.resolve!(ctx, '-'))! }
  }
  const colon = ref.indexOf(':')
  const named = colon > 0 ? ref.slice(0, colon) : ''
  if (named && isHarnessId(named) && !existsSync(ref)) {
    const h = getHarness(named)
    const id = ref.slice(colon + 1)
    if (!h.resolve || !h.read) throw new UsageError(`${h.name} (${h.id}) cannot be read yet`)
    if (!id) throw new UsageError(`"${ref}": give a session id (or a prefix of one) after "${named}:"`)
    const found = await byId(ctx, [h], id)
    if (found) return found
    throw new FerryError(`no ${h.id} session "${id}" under ${h.root(ctx)}${await archivedHint(ctx, ref)}`, { code: 'no-session' })
  }
  if (existsSync(ref)) {
    for (const h of claimOrder()) {
      if (!h.resolve || !h.read) continue
      const s = await h.resolve(ctx, ref)
      if (s) return { harness: h, session: s }
    }
    throw new FerryError('no harness recognises this as a session', { code: 'no-session', position: { file: ref } })
  }
  // `claud:ID`: a mistyped harness, not an id with a colon in it.
  if (/^[a-z][a-z0-9-]*$/i.test(named) && !ref.includes('/')) {
    const ids = harnesses.filter((h) => h.read).map((h) => h.id)
    throw new UsageError(`unknown harness "${named}" in "${ref}"${didYouMean(named.toLowerCase(), ids)} (known: ${ids.join(', ')})`)
  }
  // A bare id: look in every store.
  const found = await byId(ctx, harnesses.filter((h) => h.kind !== 'stream' && !h.holdsCopies && h.read), ref)
  if (found) return found
  throw new FerryError(`no session "${ref}" (give harness:id, a path, or - for stdin)${await archivedHint(ctx, ref)}`, { code: 'no-session' })
}

const MAX_CANDIDATES = 8

/** `id` names the session exactly: its id, or its session key (a store of copies is asked for `codex:ID`). */
function named(s: { id: string; sid: string }, id: string): boolean {
  return s.id === id || s.sid === id
}

/** The session of `hs` whose id is `id` or starts with it; null when none; AmbiguousError when several. */
async function byId(ctx: StoreContext, hs: Harness[], id: string): Promise<ResolvedRef | null> {
  const exact: ResolvedRef[] = []
  const prefixed: ResolvedRef[] = []
  for (const h of hs) {
    if (!h.discover) {
      // Nothing to list: the harness's own lookup, held to an exact id.
      const s = await h.resolve?.(ctx, id).catch(() => null)
      if (s && named(s, id)) exact.push({ harness: h, session: s })
      continue
    }
    let seen = false
    for await (const s of h.discover(ctx, { all: true })) {
      if (s.id === id) (exact.push({ harness: h, session: s }), (seen = true))
      else if (s.id.startsWith(id)) prefixed.push({ harness: h, session: s })
    }
    if (!seen && prefixed.every((p) => p.harness !== h)) {
      // Sessions discovery does not list (a file outside the store the harness still knows by id).
      const s = await h.resolve?.(ctx, id).catch(() => null)
      if (s && named(s, id)) exact.push({ harness: h, session: s })
    }
  }
  const hits = exact.length ? exact : prefixed
  if (hits.length === 1) return hits[0]!
  if (hits.length === 0) return null
  const shown = hits.slice(0, MAX_CANDIDATES).map(({ session: s }) => `${s.sid}${s.updated_at || s.created_at ? ` (${(s.updated_at ?? s.created_at)!.slice(0, 10)})` : ''}`)
  const more = hits.length > MAX_CANDIDATES ? `, and ${hits.length - MAX_CANDIDATES} more` : ''
  const hint = hs.length > 1 ? 'give more of the id, or harness:id' : 'give more of the id'
  throw new AmbiguousError(`"${id}" is ambiguous: it matches ${hits.length} sessions: ${shown.join(', ')}${more}; ${hint}`)
}

/** `; the archive at … has it: ferry cat <sid> --archive` when a store that holds copies has the session, else ''. */
async function archivedHint(ctx: StoreContext, ref: string): Promise<string> {
  for (const h of harnesses) {
    if (!h.holdsCopies || !h.resolve) continue
    const s = await h.resolve(ctx, ref).catch(() => null)
    if (s) return `; the ${h.name} at ${s.path} has it${(s as { gone_from_source?: string }).gone_from_source ? ' (gone from its source)' : ''}: ferry cat ${s.sid} --${h.id}`
  }
  return ''
}
