/**
 * `ferry archive --install-service`: a user service that runs `ferry archive --watch` from login on
 * — a systemd user unit on Linux, a launchd agent on macOS; elsewhere the crontab line to add.
 * The service manager is asked to start it when it is there; when it is not (a container, no user
 * session bus), the file is written and the command that starts it is printed.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { xdgDir, type StoreContext } from '../context.js'
import { writeWholeFile } from '../io/atomic.js'
import { harnesses } from '../harness/registry.js'
import { ferryBin } from './hooks.js'

const UNIT = 'ferry-archive.service'
const LABEL = 'dev.ferry.archive'

export interface ServiceResult {
  kind: 'systemd' | 'launchd' | 'cron'
  /** The file written or removed (none for cron). */
  file?: string
  /** What was run, and whether it worked. */
  ran: Array<{ command: string; ok: boolean; output?: string }>
  /** What the user still has to do (nothing when empty). */
  todo: string[]
}

function watchArgv(opts: { db?: string; home?: string }): string[] {
  return [process.execPath, ferryBin(), harnesses.find((h) => h.holdsCopies)!.id, '--watch', '--quiet', ...(opts.db ? ['--db', opts.db] : []), ...(opts.home ? ['--home', opts.home] : [])]
}

/** systemd's quoting for ExecStart: every word in double quotes. */
const sdQuote = (a: string) => `"${a.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function run(cmd: string, args: string[]): { command: string; ok: boolean; output?: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 15_000 })
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() || r.error?.message
  return { command: [cmd, ...args].join(' '), ok: r.status === 0, ...(output ? { output } : {}) }
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0

export function servicePlatform(): 'systemd' | 'launchd' | 'cron' {
  if (process.platform === 'darwin') return 'launchd'
  if (process.platform === 'linux') return 'systemd'
  return 'cron'
}

export async function installService(ctx: StoreContext, opts: { db?: string; home?: string; start?: boolean }): Promise<ServiceResult> {
  const argv = watchArgv(opts)
  const kind = servicePlatform()
  if (kind === 'systemd') {
    const file = join(xdgDir(ctx, 'config'), 'systemd', 'user', UNIT)
    const text = ['[Unit]', 'Description=ferry: keep the session archive up to date', '', '[Service]', `ExecStart=${argv.map(sdQuote).join(' ')}`, 'Restart=on-failure', 'RestartSec=30', 'Nice=10', '', '[Install]', 'WantedBy=default.target', ''].join('\n')
    mkdirSync(dirname(file), { recursive: true })
    await writeWholeFile(file, text, { force: true })
    const steps = [['--user', 'daemon-reload'], ['--user', 'enable', '--now', UNIT]]
    return startWith(kind, file, 'systemctl', steps, opts.start !== false)
  }
  if (kind === 'launchd') {
    const file = join(ctx.home, 'Library', 'LaunchAgents', `${LABEL}.plist`)
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n  <key>Label</key><string>${LABEL}</string>\n  <key>ProgramArguments</key>\n  <array>\n${argv.map((a) => `    <string>${xml(a)}</string>`).join('\n')}\n  </array>\n  <key>RunAtLoad</key><true/>\n  <key>KeepAlive</key><true/>\n  <key>ProcessType</key><string>Background</string>\n</dict>\n</plist>\n`
    mkdirSync(dirname(file), { recursive: true })
    await writeWholeFile(file, text, { force: true })
    return startWith(kind, file, 'launchctl', [['load', '-w', file]], opts.start !== false)
  }
  return { kind, ran: [], todo: [`add this line to your crontab (crontab -e): @reboot ${argv.map((a) => `'${a}'`).join(' ')}`] }
}

function startWith(kind: ServiceResult['kind'], file: string, tool: string, steps: string[][], start: boolean): ServiceResult {
  const todo = steps.map((s) => [tool, ...s].join(' '))
  if (!start || !has(tool)) return { kind, file, ran: [], todo }
  const ran: ServiceResult['ran'] = []
  for (const s of steps) {
    const r = run(tool, s)
    ran.push(r)
    if (!r.ok) return { kind, file, ran, todo: todo.slice(ran.length - 1) }
  }
  return { kind, file, ran, todo: [] }
}

export function uninstallService(ctx: StoreContext, opts: { stop?: boolean }): ServiceResult {
  const kind = servicePlatform()
  const stop = opts.stop !== false
  if (kind === 'systemd') {
    const file = join(xdgDir(ctx, 'config'), 'systemd', 'user', UNIT)
    const ran = stop && has('systemctl') && existsSync(file) ? [run('systemctl', ['--user', 'disable', '--now', UNIT])] : []
    rmSync(file, { force: true })
    if (stop && has('systemctl')) ran.push(run('systemctl', ['--user', 'daemon-reload']))
    return { kind, file, ran, todo: [] }
  }
  if (kind === 'launchd') {
    const file = join(ctx.home, 'Library', 'LaunchAgents', `${LABEL}.plist`)
    const ran = stop && has('launchctl') && existsSync(file) ? [run('launchctl', ['unload', '-w', file])] : []
    rmSync(file, { force: true })
    return { kind, file, ran, todo: [] }
  }
  return { kind, ran: [], todo: ['remove the ferry archive --watch line from your crontab (crontab -e)'] }
}
