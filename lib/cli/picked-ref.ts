/**
 * `show`, `render` and `continue` given no session on a terminal: the
 * picker chooses one (`ferry pick`'s list, Enter picks). Anywhere else
 * (a pipe, a script) nothing changes: they read stdin or say what is missing.
 */
import type { StoreContext } from '../context.js'
import { pickRef } from '../pick/index.js'
import { archiveFlag } from './archive-options.js'
import type { Args } from './options.js'
import { useColor } from './view-options.js'

/** Whether a command given `refs` should open the picker: none named, no --from or --archive, stdin and stdout a terminal. */
export function wantsPicker(argv: Args, refs: readonly string[]): boolean {
  const from = Array.isArray(argv.from) && argv.from.length > 0
  return refs.length === 0 && !from && !argv[archiveFlag()] && Boolean(process.stdin.isTTY && process.stdout.isTTY)
}

/** The REF picked, or null when the person left the picker (the command then does nothing: exit 0, or 130 after Ctrl-C). */
export async function pickedRef(ctx: StoreContext): Promise<string | null> {
  const out = await pickRef(ctx, useColor(process.env, true))
  if (out.kind === 'interrupt') process.exitCode = 130
  return out.kind === 'print' ? out.row.ref : null
}
