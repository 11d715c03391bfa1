/**
 * The hooks block of a Claude-Code-style `settings.json`
 * (`hooks: {Event: [{matcher?, hooks: [{type: "command", command, timeout}]}]}`), which Claude Code,
 * Gemini CLI and Qwen Code share. Edits go through jsonc-parser so that the rest of the user's file
 * (keys, order, comments, indentation) stays byte for byte what it was.
 */
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import type { HookSpec } from '../types.js'

/** Quotes an argv for `sh -c`, the way the agents run a hook's command string. */
export function shellCommand(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

/** A command string that runs `ferry hooks run`: ferry's own entry. */
export function isFerryHook(command: unknown): boolean {
  return typeof command === 'string' && /(^|\s)hooks run(\s|$)/.test(command) && /ferry/.test(command)
}

interface Settings {
  hooks?: Record<string, Array<{ hooks?: Array<{ command?: unknown }> }>>
}

function settingsOf(text: string, file = 'settings.json'): Settings {
  const errors: ParseError[] = []
  const v = parse(text, errors, { allowTrailingComma: true })
  if (errors.length) {
    const e = errors[0]!
    const line = text.slice(0, e.offset).split('\n').length
    throw new FerryError(`${file}: not valid JSON (${printParseErrorCode(e.error)}); fix it or move it aside, ferry edits only files it can read`, { code: 'bad-config', position: { file, line } })
  }
  if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) throw new FerryError(`${file}: not a JSON object`, { code: 'bad-config', position: { file } })
  return (v ?? {}) as Settings
}

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } }

/** The edits of one settings file, for the events a harness registers for; `timeout` in the agent's own unit. */
export function settingsHooks(events: string[], timeout: number) {
  return {
    add(text: string | null, command: string[]): string {
      let t = text && text.trim() ? text : '{}\n'
      const entry = { hooks: [{ type: 'command', command: shellCommand(command), timeout }] }
      for (const ev of events) {
        const list = settingsOf(t).hooks?.[ev]
        t = Array.isArray(list) && list.length ? appendToArray(t, ['hooks', ev], entry) : applyEdits(t, modify(t, ['hooks', ev], [entry], FORMAT))
      }
      return t
    },
    remove(text: string): string {
      let t = text
      // One entry at a time, re-reading after each edit: the offsets move.
      for (;;) {
        const hooks = settingsOf(t).hooks ?? {}
        const at = ferryEntry(hooks)
        if (!at) return t
        const [ev, i, j] = at
        const group = hooks[ev]![i]!
        const path = group.hooks!.length > 1 ? ['hooks', ev, i, 'hooks', j] : hooks[ev]!.length > 1 ? ['hooks', ev, i] : Object.keys(hooks).length > 1 ? ['hooks', ev] : ['hooks']
        t = applyEdits(t, modify(t, path, undefined, FORMAT))
      }
    },
    has(text: string | null): boolean {
      return text !== null && ferryEntry(settingsOf(text).hooks ?? {}) !== null
    },
  }
}

/**
 * Appends a value to a non-empty array on a line of its own, indented like the array's last element:
 * jsonc-parser's own insertion re-formats the line it starts on, which holds the user's last entry.
 */
function appendToArray(text: string, path: string[], value: unknown): string {
  const arr = findNodeAtLocation(parseTree(text)!, path)!
  const last = arr.children![arr.children!.length - 1]!
  const end = last.offset + last.length
  const lineStart = text.lastIndexOf('\n', last.offset) + 1
  const lead = /^[ \t]*/.exec(text.slice(lineStart))![0]
  // An element that does not start its line (`[ {…}`) gets the array's line's indent one level in.
  const indent = text.slice(lineStart, last.offset).trim() ? /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', arr.offset) + 1))![0] + '  ' : lead
  const body = JSON.stringify(value, null, 2).replace(/\n/g, '\n' + indent)
  return text.slice(0, end) + ',\n' + indent + body + text.slice(end)
}

function ferryEntry(hooks: NonNullable<Settings['hooks']>): [string, number, number] | null {
  for (const [ev, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue
    for (let i = 0; i < list.length; i++) {
      const inner = list[i]?.hooks
      if (!Array.isArray(inner)) continue
      for (let j = 0; j < inner.length; j++) if (isFerryHook(inner[j]?.command)) return [ev, i, j]
    }
  }
  return null
}

/** A hook payload's JSON object (stdin), or null. */
export function payloadObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** The session a hook's stdin payload names: its transcript's path, else `harness:session_id`. */
export function sessionOfPayload(harness: string, stdin: string): string | null {
  const p = payloadObject(stdin)
  if (typeof p?.transcript_path === 'string' && p.transcript_path) return p.transcript_path
  return typeof p?.session_id === 'string' && p.session_id ? `${harness}:${p.session_id}` : null
}

/**
 * The whole `HookSpec` of an agent with a Claude-Code-style `settings.json`: its file, the events ferry
 * registers for, the timeout in the agent's own unit; the payload comes on stdin.
 */
export function settingsHookSpec(harness: string, file: (ctx: StoreContext) => string, events: string[], timeout: number): HookSpec {
  const settings = settingsHooks(events, timeout)
  return {
    file,
    events: events.join(' and '),
    add: settings.add,
    remove: settings.remove,
    has: settings.has,
    session: ({ stdin }) => sessionOfPayload(harness, stdin),
    stdin: true,
    budgetMs: 20_000,
  }
}
