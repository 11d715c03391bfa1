/** `ferry doctor`: which agents are installed, their stores, the versions ferry was verified against, and what ferry does not understand in their newest sessions. */
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { namedEntries } from '../selection.js'
import { doctor, failed, formatReport } from '../../doctor/check.js'
import { contextFrom, requireHome, type Args } from '../options.js'

export const command = 'doctor'
export const describe = 'Check every agent: installed version against the versions ferry was verified with, store, session count, and record types in its newest sessions that ferry does not understand (reads only)'

export function builder(y: Argv): Argv {
  return y
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('newest', { type: 'number', default: 12, describe: 'How many of the newest sessions of each agent to read' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON document: {"agents": [...], "ok": true|false}' })
    .example('ferry doctor', 'every agent on this machine')
    .example('ferry doctor --harness codex --newest 50 --json', 'Codex only, the 50 newest sessions, as JSON')
}

export async function handler(argv: Args): Promise<void> {
  requireHome(argv)
  const newest = Number(argv.newest)
  if (!Number.isInteger(newest) || newest < 0) throw new UsageError(`--newest ${String(argv.newest)}: give a whole number of sessions, 0 or more`)
  const only = namedEntries(argv.harness).map((h) => h.id)
  const ctx = contextFrom(argv)
  const reports = await doctor(ctx, { newest, only })
  const bad = failed(reports)
  if (argv.json) process.stdout.write(JSON.stringify({ agents: reports, ok: !bad }, null, 2) + '\n')
  else process.stdout.write(formatReport(reports, ctx.home))
  if (bad) process.exitCode = 1
}
