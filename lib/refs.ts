/**
 * Turning what a user typed (`codex:0199…`, a path, `-`, a bare id) into a
 * session of a harness.
 */
import { existsSync } from 'node:fs'
import { AmbiguousError, FerryError, UsageError } from './errors.js'
import type { StoreContext } from './context.js'
import { getHarness, harnesses, isHarnessId, storeHarnesses, streamHarness } from './harness/registry.js'
import type { Harness, SessionInfo } from './harness/types.js'

export interface ResolvedRef {
  harness: Harness
  session: SessionInfo
}

/** Path claims are tried in this order: the interchange stream first (cheap, specific). */
function claimOrder(): Harness[] {
  return [streamHarness(), ...storeHarnesses()]
}

export async function resolveRef(ctx: StoreContext, ref: string): Promise<ResolvedRef> {
  if (ref === '-') {
    const h = streamHarness()
    return { harness: h, session: (await h.resolve!(ctx, '-'))! }
  }
  const colon = ref.indexOf(':')
  if (colon > 0 && isHarnessId(ref.slice(0, colon)) && !existsSync(ref)) {
    const h = getHarness(ref.slice(0, colon))
    const id = ref.slice(colon + 1)
    if (!h.resolve || !h.read) throw new UsageError(`${h.name} (${h.id}) cannot be read yet`)
    const s = await h.resolve(ctx, id)
    if (!s) throw new FerryError(`no ${h.id} session "${id}" under ${h.root(ctx)}${await archivedHint(ctx, ref)}`, { code: 'no-session' })
    return { harness: h, session: s }
  }
  if (existsSync(ref)) {
    for (const h of claimOrder()) {
      if (!h.resolve || !h.read) continue
      const s = await h.resolve(ctx, ref)
      if (s) return { harness: h, session: s }
    }
    throw new FerryError('no harness recognises this as a session', { code: 'no-session', position: { file: ref } })
  }
  // A bare id: look in every store; it must match exactly one session.
  const found: ResolvedRef[] = []
  for (const h of harnesses) {
    if (!h.resolve || !h.read || h.kind === 'stream' || h.holdsCopies) continue
    const s = await h.resolve(ctx, ref)
    if (s) found.push({ harness: h, session: s })
  }
  if (found.length === 1) return found[0]!
  if (found.length > 1) throw new AmbiguousError(`"${ref}" is ambiguous: ${found.map((f) => f.session.sid).join(', ')}`)
  throw new FerryError(`no session "${ref}" (give harness:id, a path, or - for stdin)${await archivedHint(ctx, ref)}`, { code: 'no-session' })
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
