import { spawnSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
import which from 'which'
import type { Argv } from 'yargs'
import { getHarness, writable } from '../../harness/registry.js'
import { commandLine, continueSession, resumeBinary } from '../../app/continue.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics, writtenLine } from '../output.js'
import { pickedRef, wantsPicker } from '../picked-ref.js'
import { FerryError, UsageError } from '../../errors.js'
import { failureJson } from '../failure.js'
import { STDIN_SENTINEL } from '../argv.js'

export const command = 'continue [ref]'
export const describe = 'Write a session into another agent\'s store and print (or run) the command that resumes it'

export function builder(y: Argv): Argv {
  return y
    .positional('ref', { type: 'string', describe: 'harness:id or a session path (none on a terminal: pick one)' })
    .option('with', { type: 'string', demandOption: true, describe: `Agent to continue in: ${writable().filter((h) => h.kind === 'store' && h.resumeHint).map((h) => h.id).join(', ')}` })
    .option('cwd', { type: 'string', describe: 'Directory to resume in (default: the session\'s own, when it exists)' })
    .option('new', { type: 'boolean', default: false, describe: 'Write a fresh copy even when an unchanged one exists' })
    .option('exec', { type: 'boolean', default: false, describe: 'Run the resume command in this terminal' })
    .option('json', { type: 'boolean', default: false, describe: 'Report as JSON (written session + command)' })
    .example('ferry continue codex:019a3c1e --with claude-code', 'prints: cd /repo && claude --resume <id>')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const target = getHarness(String(argv.with))
  // `-` reaches here as the sentinel main.ts puts for it (so yargs keeps it as a value): stdin.
  let ref = typeof argv.ref === 'string' ? (argv.ref === STDIN_SENTINEL ? '-' : argv.ref) : undefined
  if (ref === undefined) {
    if (!wantsPicker(argv, [])) throw new UsageError('continue: name the session to continue (harness:id or a path)')
    const picked = await pickedRef(ctx)
    if (!picked) return
    ref = picked
  }
  const r = await continueSession(ctx, ref, target.id, { ...(typeof argv.cwd === 'string' ? { cwd: argv.cwd } : {}), fresh: Boolean(argv.new) })
  for (const n of r.notes) process.stderr.write(`ferry: ${n}\n`)
  if (r.written.note) process.stderr.write(`ferry: ${r.written.note}\n`)
  const pending = r.written.pending
  const line = commandLine(r.command, pending)
  if (argv.json) process.stdout.write(JSON.stringify({ ...r.written, command: r.command.argv, cwd: r.command.cwd, reused: r.reused }) + '\n')
  else process.stdout.write(`${writtenLine({ ...r.written, note: undefined }, false)}\n${line}\n`)
  finishDiagnostics(ctx.diagnostics)
  if (!argv.exec) return
  // The session is written whatever happens below: every failure says what to run, as JSON with --json.
  const fail = (message: string, code: 'no-client' | 'import-failed' = 'no-client') => {
    const err = new FerryError(message, { code, source: target.id })
    if (argv.json) process.stderr.write(failureJson(err) + '\n')
    else process.stderr.write(`ferry: error: ${message}\n`)
    process.exitCode = 1
  }
  const bin = resumeBinary(target)!
  const found = which.sync(bin, { nothrow: true })
  if (!found) return fail(`${bin} (${target.name}) is not on PATH; the session is written, resume it with: ${line}`)
  if (target.isOwnBinary && !target.isOwnBinary(realpathSync(found))) return fail(`${found} is not ${target.name}'s ${bin} (another program of that name is first on PATH); the session is written, resume it with: ${line}`)
  if (pending) {
    const imp = spawnSync(found, pending.argv.slice(1), { cwd: pending.cwd, stdio: ['ignore', 'inherit', 'inherit'] })
    if (imp.error || imp.status !== 0) return fail(`${pending.argv.join(' ')} failed (${imp.error?.message ?? `exit ${imp.status}`}); the document is kept, resume with: ${line}`, 'import-failed')
  }
  const res = spawnSync(found, r.command.argv.slice(1), { cwd: r.command.cwd, stdio: 'inherit' })
  if (res.error) return fail(`could not run ${found}: ${res.error.message}; resume with: ${line}`)
  process.exitCode = res.status ?? 1
}
