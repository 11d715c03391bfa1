/**
 * Codex's `notify` (`$CODEX_HOME/config.toml`): one program Codex runs after every agent turn, with
 * a JSON payload (`{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", …}`) as its last
 * argument; Codex kills it after 1.5 s. There is one `notify`: a user's own is kept and run by
 * ferry's hook after it (`--then`), and put back on uninstall.
 * https://github.com/openai/codex/blob/main/docs/config.md#notify
 */
import { join } from 'node:path'
import { parse, patch } from '@decimalturn/toml-patch'
import { FerryError } from '../../errors.js'
import type { HookSpec } from '../types.js'
import { isFerryHook, payloadObject, shellCommand } from '../family/claude-hooks.js'
import { store } from './paths.js'

type Toml = Record<string, unknown>

function tomlOf(text: string, file = 'config.toml'): Toml {
  try {
    return parse(text) as Toml
  } catch (err) {
    const m = /line (\d+)/i.exec(String((err as Error).message))
    throw new FerryError(`${file}: not valid TOML; fix it or move it aside, ferry edits only files it can read`, { code: 'bad-config', position: { file, ...(m ? { line: Number(m[1]) } : {}) } })
  }
}

const argvOf = (v: unknown): string[] | null => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null)
const ours = (v: unknown): boolean => isFerryHook(shellCommand(argvOf(v) ?? []))

export const hooks: HookSpec = {
  file: (ctx) => join(store.root(ctx), 'config.toml'),
  events: 'notify (after every agent turn)',
  add(text, command) {
    const t = text ?? ''
    const doc = tomlOf(t)
    const theirs = argvOf(doc.notify)
    doc.notify = theirs && theirs.length && !ours(theirs) ? [...command, '--then', JSON.stringify(theirs)] : command
    return t.trim() ? patch(t, doc) : `notify = ${JSON.stringify(doc.notify)}\n`
  },
  remove(text) {
    const doc = tomlOf(text)
    const argv = argvOf(doc.notify)
    if (!argv || !ours(argv)) return text
    const then = argv.indexOf('--then')
    const theirs = then >= 0 ? argvOf(safeJson(argv[then + 1])) : null
    if (theirs) doc.notify = theirs
    else delete doc.notify
    return patch(text, doc)
  },
  has: (text) => text !== null && ours(tomlOf(text).notify),
  session({ args }) {
    const p = payloadObject(args[args.length - 1] ?? '')
    const id = p?.['thread-id']
    return typeof id === 'string' && id ? `codex:${id}` : null
  },
  stdin: false,
  budgetMs: 1_000,
}

function safeJson(s: string | undefined): unknown {
  try {
    return s === undefined ? null : JSON.parse(s)
  } catch {
    return null
  }
}
