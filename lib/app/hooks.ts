/**
 * `ferry hooks`: registers ferry with each agent's own hook mechanism, so that the agent archives a
 * session when a turn or the session ends. Each agent's file and format come from its harness
 * (`hooks` of the registry's harnesses); this module edits files, remembers what it changed, and
 * puts them back. What an install changed is kept in `$XDG_STATE_HOME/ferry/hooks.json`: the
 * file's bytes before and a hash of what ferry wrote, so `uninstall` restores it byte for byte
 * when nobody touched it since, and otherwise takes out only ferry's entry.
 */
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTwoFilesPatch } from 'diff'
import { xdgDir, type StoreContext } from '../context.js'
import { FerryError } from '../errors.js'
import { writeWholeFile } from '../io/atomic.js'
import type { Harness, HookSpec } from '../harness/types.js'

export interface HookResult {
  harness: string
  file: string
  /** installed, already, removed, restored, absent, would-install, would-remove */
  action: string
  /** The change as a unified diff (`--dry-run`). */
  diff?: string
  note?: string
}

interface Saved {
  file: string
  /** The file's bytes before the install, base64; null: there was no file. */
  before: string | null
  /** sha256 of the text ferry wrote. */
  after: string
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex')

function statePath(ctx: StoreContext): string {
  return join(xdgDir(ctx, 'state'), 'ferry/hooks.json')
}

function loadState(ctx: StoreContext): Record<string, Saved> {
  const p = statePath(ctx)
  if (!existsSync(p)) return {}
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as Record<string, Saved>
  } catch {
    throw new FerryError(`${p}: not valid JSON; move it aside to let \`ferry hooks\` start afresh`, { code: 'bad-config', position: { file: p } })
  }
}

async function saveState(ctx: StoreContext, state: Record<string, Saved>): Promise<void> {
  const p = statePath(ctx)
  mkdirSync(dirname(p), { recursive: true })
  await writeWholeFile(p, JSON.stringify(state, null, 2) + '\n', { force: true })
}

/** The file's text, null when absent; a symlinked settings file is refused (ferry writes no file it does not own the path of). */
function readText(file: string): string | null {
  let st
  try {
    st = lstatSync(file)
  } catch {
    return null
  }
  if (st.isSymbolicLink()) throw new FerryError(`${file} is a symbolic link; ferry does not write through it: add the hook to the file it points at yourself (\`ferry hooks install --dry-run\` shows the entry)`, { code: 'unsafe-path', position: { file } })
  return readFileSync(file, 'utf8')
}

async function writeText(file: string, text: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true })
  const mode = existsSync(file) ? lstatSync(file).mode & 0o777 : undefined
  await writeWholeFile(file, text, { force: true, ...(mode === undefined ? {} : { mode }) })
}

/** `bin/ferry.js` of this installation, found upwards from this module (it works from dist/ and from the bundle). */
export function ferryBin(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'bin', 'ferry.js')) && dirname(dir) !== dir) dir = dirname(dir)
  return join(dir, 'bin', 'ferry.js')
}

/** The argv an agent runs: absolute node and ferry (hooks run with a minimal environment), the agent's id, the chosen archive and home. */
export function hookCommand(h: Harness, opts: { db?: string; home?: string }): string[] {
  return [process.execPath, ferryBin(), 'hooks', 'run', h.id, ...(opts.db ? ['--db', opts.db] : []), ...(opts.home ? ['--home', opts.home] : [])]
}

const diffOf = (file: string, a: string | null, b: string | null) => createTwoFilesPatch(a === null ? '/dev/null' : file, b === null ? '/dev/null' : file, a ?? '', b ?? '', '', '', { context: 3 })

export async function installHooks(ctx: StoreContext, hs: Harness[], opts: { db?: string; home?: string; dryRun?: boolean }): Promise<HookResult[]> {
  const state = loadState(ctx)
  const out: HookResult[] = []
  for (const h of hs) {
    const spec = h.hooks!
    const file = spec.file(ctx)
    const text = readText(file)
    if (spec.has(text)) {
      out.push({ harness: h.id, file, action: 'already' })
      continue
    }
    const next = spec.add(text, hookCommand(h, opts))
    if (opts.dryRun) {
      out.push({ harness: h.id, file, action: 'would-install', diff: diffOf(file, text, next) })
      continue
    }
    await writeText(file, next)
    state[h.id] = { file, before: text === null ? null : Buffer.from(text, 'utf8').toString('base64'), after: sha(next) }
    await saveState(ctx, state)
    out.push({ harness: h.id, file, action: 'installed' })
  }
  return out
}

export async function uninstallHooks(ctx: StoreContext, hs: Harness[], opts: { dryRun?: boolean }): Promise<HookResult[]> {
  const state = loadState(ctx)
  const out: HookResult[] = []
  for (const h of hs) {
    const spec = h.hooks!
    const saved = state[h.id]
    const file = saved?.file ?? spec.file(ctx)
    const text = readText(file)
    let next: string | null
    let action: string
    let note: string | undefined
    if (saved && text !== null && sha(text) === saved.after) {
      next = saved.before === null ? null : Buffer.from(saved.before, 'base64').toString('utf8')
      action = 'restored'
    } else if (spec.has(text)) {
      const removed = spec.remove(text!)
      next = removed === '' && (!saved || saved.before === null) ? null : removed
      action = 'removed'
      if (saved) note = 'the file changed since the install: only ferry\'s entry was taken out'
    } else {
      out.push({ harness: h.id, file, action: 'absent' })
      if (saved && !opts.dryRun) {
        delete state[h.id]
        await saveState(ctx, state)
      }
      continue
    }
    if (opts.dryRun) {
      out.push({ harness: h.id, file, action: action === 'restored' ? 'would-restore' : 'would-remove', diff: diffOf(file, text, next) })
      continue
    }
    if (next === null) rmSync(file, { force: true })
    else await writeText(file, next)
    delete state[h.id]
    await saveState(ctx, state)
    out.push({ harness: h.id, file, action, ...(note ? { note } : {}) })
  }
  return out
}

export interface HookStatus {
  harness: string
  name: string
  /** Where the agent reads its hooks; absent when it has no hook ferry uses. */
  file?: string
  events?: string
  installed: boolean
  /** The command ferry's entry runs, when installed. */
  error?: string
}

export function hookStatus(ctx: StoreContext, hs: Harness[]): HookStatus[] {
  return hs.map((h) => {
    if (!h.hooks) return { harness: h.id, name: h.name, installed: false }
    const file = h.hooks.file(ctx)
    try {
      return { harness: h.id, name: h.name, file, events: h.hooks.events, installed: h.hooks.has(readText(file)) }
    } catch (err) {
      return { harness: h.id, name: h.name, file, events: h.hooks.events, installed: false, error: (err as Error).message }
    }
  })
}

