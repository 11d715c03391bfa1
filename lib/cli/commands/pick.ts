/**
 * `ferry pick`: every session of every agent (and the archive's) in a
 * full-screen list, newest first. Type to filter, Ctrl-F to search the
 * archive's text, Enter to read a session in `show` (back to the list after
 * the pager), Ctrl-O to continue it in another agent, Ctrl-R to render it,
 * Ctrl-Y to copy its REF, Ctrl-E (or Enter with --print) to print the REF.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Argv } from 'yargs'
import { commandLine, continueSession } from '../../app/continue.js'
import { Diagnostics } from '../../diagnostics.js'
import { continueTargets, emptyText, PickSession, runPicker } from '../../pick/index.js'
import { contextFrom, globalValueFlags, requireHome, type Args } from '../options.js'
import { writtenLine } from '../output.js'
import { useColor } from '../view-options.js'

export const command = 'pick'
export const describe = 'Pick a session in a full-screen list: type to filter, preview, then show, continue, render or print it'

export function builder(y: Argv): Argv {
  return y
    .option('print', { type: 'boolean', default: false, describe: 'Enter prints the REF of the session picked and exits (for scripts and the shell keybinding)' })
    .example('ferry pick', 'find a session by typing; Enter reads it, Ctrl-O continues it in another agent')
    .example('ferry show "$(ferry pick --print)"', 'the REF of the session picked, for another command')
}

/** `ferry ARGS…` as this process was started (same Node flags, same store options), output to this terminal. */
function runFerry(argv: Args, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const global: string[] = []
  for (const name of globalValueFlags()) {
    const v = argv[name]
    if (typeof v === 'string' || typeof v === 'number') global.push(`--${name}`, String(v))
  }
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, ...global, ...args], { stdio: 'inherit', env })
  return r.status ?? 1
}

/** A file name in the current directory for a rendered session that names no existing file. */
function renderTarget(agent: string, id: string, format: string): string {
  const base = `${agent}-${id.replace(/[^\w.-]/g, '_').slice(0, 12)}`
  for (let n = 1; ; n++) {
    const name = `${base}${n > 1 ? `-${n}` : ''}.${format}`
    if (!existsSync(name)) return name
  }
}

export async function handler(argv: Args): Promise<void> {
  requireHome(argv)
  // Reports wait until the screen is back: a line written under the picker would be drawn over.
  const ctx = contextFrom(argv, new Diagnostics({ stream: null }))
  const session = new PickSession(ctx)
  const opts = { ctx, session, printMode: Boolean(argv.print), color: useColor(process.env, true), targets: continueTargets(), emptyText: emptyText(ctx) }
  loop: for (;;) {
    const out = await runPicker(opts)
    switch (out.kind) {
      case 'quit':
        break loop
      case 'interrupt':
        process.exitCode = 130
        break loop
      case 'print':
        process.stdout.write(`${out.row.ref}\n`)
        break loop
      case 'show':
        // Through the pager; the list comes back when it is closed.
        // less without F (quit at once on a short session) and X (leave the text on the screen) unless LESS says
        // otherwise: the session stays until q, and the screen is the picker's again after.
        runFerry(argv, ['show', out.row.ref], { LESS: 'R', ...process.env })
        continue
      case 'continue': {
        const r = await continueSession(ctx, out.row.ref, out.target)
        for (const n of r.notes) process.stderr.write(`ferry: ${n}\n`)
        if (r.written.note) process.stderr.write(`ferry: ${r.written.note}\n`)
        process.stdout.write(`${writtenLine({ ...r.written, note: undefined }, false)}\n${commandLine(r.command)}\n`)
        break
      }
      case 'render': {
        const file = renderTarget(out.row.agent, out.row.id, out.format)
        const code = runFerry(argv, ['render', out.row.ref, '--format', out.format, '--out', file])
        if (code === 0) process.stdout.write(`${file}\n`)
        else process.exitCode = code
        break
      }
    }
    break
  }
  // What listing ran into is told after the screen is back, without changing the exit code of a pick.
  const d = ctx.diagnostics
  if (d.errors || d.warnings) process.stderr.write(`${d.summary()} (while listing sessions; \`ferry ls\` shows them)\n`)
}
