/**
 * `ferry show REF…`: a session as a conversation for a person. Colour only
 * on a terminal (NO_COLOR and FORCE_COLOR honoured), width from the
 * terminal, through $PAGER (default `less -R`) only when stdout is a TTY.
 */
import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import which from 'which'
import type { Argv } from 'yargs'
import { isEpipe, pipeline } from '../../io/pipeline.js'
import { renderStages } from '../../render/index.js'
import { contextFrom, readFlagOptions, readOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { pickedRef, wantsPicker } from '../picked-ref.js'
import { openSources, selectionOptions } from '../sources.js'
import { refsAndRange, useColor, viewOptions, withRefs } from '../view-options.js'

export const command = 'show [ref..]'
export const describe = 'Show sessions as a readable conversation (colour and pager on a terminal, plain text when piped)'

/** The pager's stdin as the output, or stdout itself; `done` waits for the pager to exit. */
function output(pager: boolean): { out: Writable; done: () => Promise<void> } {
  const cmd = process.env.PAGER === undefined ? 'less -R' : process.env.PAGER.trim()
  if (!pager || !process.stdout.isTTY || cmd === '' || cmd === 'cat') return { out: process.stdout, done: async () => {} }
  // A pager that is not installed (a container without less): write directly, as git does; a PAGER the user set is named once.
  const program = cmd.split(/\s+/)[0]!
  if (!/[|&;<>()$`"'\\]/.test(program) && !which.sync(program, { nothrow: true })) {
    if (process.env.PAGER !== undefined) process.stderr.write(`ferry: warning: pager "${program}" not found; writing directly (set PAGER or use --no-pager)\n`)
    return { out: process.stdout, done: async () => {} }
  }
  const child = spawn('/bin/sh', ['-c', cmd], { stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...process.env } })
  const exited = new Promise<void>((resolve) => {
    child.on('close', () => resolve())
    child.on('error', (err) => {
      process.stderr.write(`ferry: warning: pager "${cmd}" could not start (${err.message}); set PAGER or use --no-pager\n`)
      resolve()
    })
  })
  // A pager that quits early (q in less) is a reader that went away: success.
  child.stdin.on('error', (err) => {
    if (!isEpipe(err)) process.stderr.write(`ferry: warning: pager: ${err.message}\n`)
  })
  return { out: child.stdin, done: () => exited }
}

export function builder(y: Argv): Argv {
  return viewOptions(selectionOptions(readFlagOptions(y)), 'brief')
    .positional('ref', { type: 'string', array: true, describe: 'harness:id (optionally #A-B), a session path, or - for stdin' })
    .option('pager', { type: 'boolean', default: true, describe: 'Page through $PAGER (default less -R) when stdout is a terminal; --no-pager to print', group: 'View:' })
    .option('width', { type: 'number', describe: 'Wrap at this many columns (default: the terminal width, else 100)', group: 'View:' })
    .example('ferry show claude-code:5d2f…', 'read a session in the terminal')
    .example('ferry show codex:0199…#5-12 --tools full', 'messages 5 to 12, tool outputs in full')
    .example('ferry cat codex:0199… | ferry show - --no-thinking | grep -n error', 'plain text from a pipe')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const { refs, range } = refsAndRange(argv)
  if (wantsPicker(argv, refs)) {
    const ref = await pickedRef(ctx)
    if (!ref) return
    refs.push(ref)
  }
  const { source } = await openSources(ctx, withRefs(argv, refs), (from) => ({ native: false, ...readOptsFor(argv, from) }))
  const tty = Boolean(process.stdout.isTTY)
  const width = typeof argv.width === 'number' && argv.width > 0 ? argv.width : process.stdout.columns || Number(process.env.COLUMNS) || 100
  const stages = renderStages({
    format: 'terminal',
    redact: false,
    range,
    thinking: argv.thinking !== false,
    tools: argv.tools as 'full' | 'brief' | 'none',
    context: argv.context === true,
    width: Math.max(40, width),
    color: useColor(process.env, tty),
  })
  const { out, done } = output(argv.pager !== false)
  try {
    await pipeline(source, ...stages, out)
  } finally {
    await done()
  }
  finishDiagnostics(ctx.diagnostics)
}
