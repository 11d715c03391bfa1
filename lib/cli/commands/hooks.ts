/**
 * `ferry hooks install|uninstall|status|run`: the agents archive their own sessions as they end.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { getHarness, harnesses } from '../../harness/registry.js'
import type { Harness } from '../../harness/types.js'
import { hookStatus, installHooks, uninstallHooks, type HookResult } from '../../app/hooks.js'
import { runHook } from '../../app/hook-run.js'
import { contextFrom, type Args } from '../options.js'

export const command = 'hooks <action> [args..]'
export const describe = 'Let the agents archive their own sessions as turns end: install, uninstall or show ferry\'s hooks'

export function builder(y: Argv): Argv {
  return y
    .positional('action', { choices: ['install', 'uninstall', 'status', 'run'] as const, describe: 'install, uninstall, status; run is what an agent\'s hook calls' })
    .positional('args', { type: 'string', array: true, describe: 'run: the agent and its payload' })
    .option('agent', { type: 'string', array: true, describe: 'Only these agents (repeatable; default: every agent with a hook whose config or store is on this machine)' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Show the change as a diff; write nothing' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per agent on stdout' })
    .option('then', { type: 'string', hidden: true, describe: 'run: the user\'s own hook command ferry\'s entry replaced (JSON argv)' })
    .example('ferry hooks install', 'every agent on this machine archives its sessions into ~/.local/share/ferry/archive.db as they end')
    .example('ferry hooks install --agent claude-code --dry-run', 'show what would change in ~/.claude/settings.json')
    .example('ferry hooks uninstall', 'put every file back as it was')
}

/** The agents an action covers: the named ones (each must have a hook), else those with a hook that are present. */
function agentsOf(argv: Args, present: (h: Harness) => boolean): Harness[] {
  const withHooks = harnesses.filter((h) => h.hooks)
  const named = Array.isArray(argv.agent) ? argv.agent.flatMap((a) => String(a).split(',')).map((a) => a.trim()).filter(Boolean) : []
  if (!named.length) return withHooks.filter(present)
  return named.map((n) => {
    const h = getHarness(n)
    if (!h.hooks) throw new UsageError(`${h.name} has no hook that ferry can use (agents with one: ${withHooks.map((x) => x.id).join(', ')}); \`ferry archive --watch\` keeps its sessions archived`)
    return h
  })
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const action = String(argv.action)
  const args = (Array.isArray(argv.args) ? argv.args : []).map(String)
  if (action === 'run') {
    const h = args.length ? getHarness(args[0]!) : null
    if (!h?.hooks) throw new UsageError('hooks run AGENT [PAYLOAD]: name an agent that has hooks')
    let then: string[] | undefined
    try {
      then = typeof argv.then === 'string' ? (JSON.parse(argv.then) as string[]) : undefined
    } catch {
      then = undefined
    }
    const stdin = h.hooks.stdin && !process.stdin.isTTY ? await readStdinText(2_000, 1 << 20) : ''
    await runHook(ctx, h, { stdin, args: args.slice(1), ...(typeof argv.db === 'string' ? { db: argv.db } : {}), ...(typeof argv.home === 'string' ? { home: argv.home } : {}), ...(then ? { then } : {}) })
    return
  }
  if (args.length) throw new UsageError(`hooks ${action} takes no arguments (got ${args.join(' ')}); choose agents with --agent`)
  if (action === 'status') {
    const rows = hookStatus(ctx, harnesses.filter((h) => h.kind === 'store' && !h.holdsCopies))
    if (argv.json) for (const r of rows) process.stdout.write(JSON.stringify(r) + '\n')
    else
      for (const r of rows)
        process.stdout.write(
          r.file
            ? `${r.name.padEnd(12)} ${r.installed ? 'installed    ' : 'not installed'} ${r.file}${r.error ? ` (${r.error})` : ''}\n`
            : `${r.name.padEnd(12)} no hook       (\`ferry archive --watch\` keeps it archived)\n`,
        )
    return
  }
  const present = (h: Harness) => {
    const file = h.hooks!.file(ctx)
    return existsAny([file, resolve(file, '..'), h.root(ctx)])
  }
  const opts = { ...(typeof argv.db === 'string' ? { db: resolve(argv.db) } : {}), ...(typeof argv.home === 'string' ? { home: resolve(argv.home) } : {}), dryRun: Boolean(argv.dryRun) }
  const hs = agentsOf(argv, action === 'install' ? present : () => true)
  if (!hs.length) {
    process.stderr.write('ferry: hooks: no agent with a hook found on this machine (name one with --agent)\n')
    process.exitCode = 1
    return
  }
  const results = action === 'install' ? await installHooks(ctx, hs, opts) : await uninstallHooks(ctx, hs, opts)
  for (const r of results) report(r, Boolean(argv.json))
}

function existsAny(paths: string[]): boolean {
  return paths.some((p) => existsSync(p))
}

/** What the agent wrote on stdin: at most `max` bytes, and no longer than `ms` (an agent that keeps it open must not hold the hook). */
function readStdinText(ms: number, max: number): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = []
    let n = 0
    const finish = () => {
      clearTimeout(timer)
      process.stdin.pause()
      process.stdin.removeAllListeners('data')
      done(Buffer.concat(chunks).toString('utf8'))
    }
    const timer = setTimeout(finish, ms)
    process.stdin.on('data', (b: Buffer) => {
      if (n < max) chunks.push(b)
      n += b.length
    })
    process.stdin.once('end', finish)
    process.stdin.once('error', finish)
  })
}

const WORDS: Record<string, string> = {
  installed: 'hook installed in',
  already: 'hook already installed in',
  restored: 'restored as it was before the install:',
  removed: 'hook removed from',
  absent: 'no ferry hook in',
  'would-install': 'would install the hook in',
  'would-restore': 'would restore as it was before the install:',
  'would-remove': 'would remove the hook from',
}

function report(r: HookResult, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(r) + '\n')
    return
  }
  if (r.diff) process.stdout.write(r.diff)
  process.stderr.write(`ferry: ${getHarness(r.harness).name}: ${WORDS[r.action] ?? r.action} ${r.file}${r.note ? ` (${r.note})` : ''}\n`)
}
