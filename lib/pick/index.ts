/**
 * `ferry pick`: a full-screen picker over every session of every agent.
 * `pickRef` is the short form the commands that take a REF use when given
 * none on a terminal (`ferry show`): the REF picked, or null.
 */
import type { StoreContext } from '../context.js'
import { storeHarnesses } from '../harness/registry.js'
import { PickSession, runPicker } from './app.js'
import { liveStores } from './load.js'
import type { Outcome } from './state.js'

export { PickSession, runPicker } from './app.js'
export type { Outcome } from './state.js'

/** The agents a session can be continued in: the stores with a resume command. */
export function continueTargets(): Array<{ value: string; label: string }> {
  return storeHarnesses()
    .filter((h) => h.sink && h.resumeHint)
    .map((h) => ({ value: h.id, label: `${h.name} (${h.id})` }))
}

/** What the list says when no store has a session: the stores it looked at, as `ferry ls` says it. */
export function emptyText(ctx: StoreContext): string {
  return `no sessions found (stores looked at: ${liveStores().map((h) => `${h.id} ${h.root(ctx)}`).join(', ')})`
}

/** The picker where Enter picks: a REF (`print`), or `quit` (Escape) or `interrupt` (Ctrl-C). */
export function pickRef(ctx: StoreContext, color: boolean): Promise<Outcome> {
  return runPicker({ ctx, session: new PickSession(ctx), printMode: true, color, targets: [], emptyText: emptyText(ctx) })
}
