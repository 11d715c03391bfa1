/**
 * The picker's keys: one pure step from a state and a key to the next
 * state, and an outcome when the key ends the picker (or `copy` for the
 * REF to put on the clipboard). The key map is KEY_HELP's, on screen.
 */
import type { Row } from './rows.js'
import type { Outcome, PickState } from './state.js'

/** A key as the terminal library reports it, reduced to what the picker reads. */
export interface Key {
  /** Printable text typed (may be several characters when pasted). */
  text: string
  ctrl: boolean
  meta: boolean
  name?: 'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'backspace' | 'delete' | 'tab'
}

export interface KeyContext {
  rows: readonly Row[]
  listHeight: number
  previewHeight: number
  previewLines: number
  /** `--print` (and show/continue/render without a REF): Enter prints the REF instead of opening it. */
  printMode: boolean
  /** The agents a session can be continued in (id and name). */
  targets: Array<{ value: string; label: string }>
}

export interface Step {
  state: PickState
  outcome?: Outcome
  copy?: Row
  /** The query or mode changed: the list must be filtered again. */
  refilter?: boolean
}

/** The escape sequences of the keys the picker reads (xterm and its kin; `ESC O x` is the cursor-key mode). */
const SEQUENCES: Record<string, Key['name']> = {
  '[A': 'up',
  OA: 'up',
  '[B': 'down',
  OB: 'down',
  '[5~': 'pageUp',
  '[6~': 'pageDown',
  '[H': 'home',
  OH: 'home',
  '[1~': 'home',
  '[F': 'end',
  OF: 'end',
  '[4~': 'end',
  '[3~': 'delete',
}

/**
 * The keys in what one read from the terminal gave, in order. Several keys arrive together on a loaded
 * machine, in a paste, or from tmux's send-keys: `x\x0f` is the letter x, then Ctrl-O; `t\x1b[B` is t,
 * then Down. Sequences of keys the picker does not read are dropped, never typed; Alt+letter (ESC then
 * the letter) is dropped too, so it is not read as Escape.
 */
export function parseKeys(chunk: string): Key[] {
  const keys: Key[] = []
  let text = ''
  const key = (name: Key['name']) => keys.push({ text: '', ctrl: false, meta: false, name })
  const flush = () => {
    if (text) keys.push({ text, ctrl: false, meta: false })
    text = ''
  }
  for (let i = 0; i < chunk.length; i++) {
    const ch = chunk[i]!
    const c = ch.charCodeAt(0)
    if (c >= 0x20 && c !== 0x7f) {
      text += ch
      continue
    }
    flush()
    if (ch === '\x1b') {
      // CSI: ESC [ parameters final-byte; SS3: ESC O letter; else a lone Escape.
      const csi = /^\[[0-9;]*[@-~]/.exec(chunk.slice(i + 1))
      const ss3 = /^O[A-Z]/.exec(chunk.slice(i + 1))
      const seq = csi?.[0] ?? ss3?.[0]
      if (seq) {
        const name = SEQUENCES[seq]
        if (name) key(name)
        i += seq.length
      } else if (i + 1 < chunk.length && chunk.charCodeAt(i + 1) >= 0x20) i++
      else key('escape')
    } else if (ch === '\r' || ch === '\n') key('return')
    else if (ch === '\t') key('tab')
    else if (c === 0x7f || c === 0x08) key('backspace')
    else if (c >= 1 && c <= 26) keys.push({ text: String.fromCharCode(c + 96), ctrl: true, meta: false })
  }
  flush()
  return keys
}

export const KEY_HELP = '↵ show ^O continue ^R render ^Y copy ^E print ^F full text PgUp/Dn esc quit'
export const KEY_HELP_PRINT = '↵ pick  ^F full text  PgUp/PgDn preview  esc quit'

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, n))

/** The cursor moved to `to`: the list scrolls to keep it in view and the preview starts at its top. */
function moveTo(s: PickState, to: number, c: KeyContext): PickState {
  const cursor = clamp(to, 0, Math.max(0, c.rows.length - 1))
  let top = s.top
  if (cursor < top) top = cursor
  if (cursor >= top + c.listHeight) top = cursor - c.listHeight + 1
  return { ...s, cursor, top: Math.max(0, top), previewTop: cursor === s.cursor ? s.previewTop : 0 }
}

export function step(s0: PickState, k: Key, c: KeyContext): Step {
  const s: PickState = { ...s0, status: '' }
  const row = c.rows[s.cursor]
  if (k.ctrl && k.text === 'c') return { state: s, outcome: { kind: 'interrupt' } }
  if (s.chooser) {
    const ch = s.chooser
    if (k.name === 'escape') return { state: { ...s, chooser: null } }
    if (k.name === 'up' || (k.ctrl && k.text === 'p')) return { state: { ...s, chooser: { ...ch, at: clamp(ch.at - 1, 0, ch.choices.length - 1) } } }
    if (k.name === 'down' || (k.ctrl && k.text === 'n')) return { state: { ...s, chooser: { ...ch, at: clamp(ch.at + 1, 0, ch.choices.length - 1) } } }
    if (k.name === 'return' && row) {
      const v = ch.choices[ch.at]!.value
      return { state: { ...s, chooser: null }, outcome: ch.kind === 'continue' ? { kind: 'continue', row, target: v } : { kind: 'render', row, format: v } }
    }
    return { state: s0 }
  }
  switch (k.name) {
    case 'escape':
      return { state: s, outcome: { kind: 'quit' } }
    case 'up':
      return { state: moveTo(s, s.cursor - 1, c) }
    case 'down':
      return { state: moveTo(s, s.cursor + 1, c) }
    case 'home':
      return { state: moveTo(s, 0, c) }
    case 'end':
      return { state: moveTo(s, c.rows.length - 1, c) }
    case 'pageUp':
      return { state: { ...s, previewTop: Math.max(0, s.previewTop - Math.max(1, c.previewHeight - 1)) } }
    case 'pageDown':
      return { state: { ...s, previewTop: clamp(s.previewTop + Math.max(1, c.previewHeight - 1), 0, Math.max(0, c.previewLines - c.previewHeight)) } }
    case 'return':
      if (!row) return { state: s }
      return { state: s, outcome: c.printMode ? { kind: 'print', row } : { kind: 'show', row } }
    case 'backspace':
    case 'delete':
      if (!s.query) return { state: s }
      return { state: { ...s, query: s.query.slice(0, -1), cursor: 0, top: 0, previewTop: 0 }, refilter: true }
    case 'tab':
      return { state: s }
  }
  if (k.ctrl) {
    switch (k.text) {
      case 'p':
        return { state: moveTo(s, s.cursor - 1, c) }
      case 'n':
        return { state: moveTo(s, s.cursor + 1, c) }
      case 'u':
        return { state: { ...s, query: '', cursor: 0, top: 0, previewTop: 0 }, refilter: true }
      case 'f':
        return { state: { ...s, mode: s.mode === 'fuzzy' ? 'text' : 'fuzzy', cursor: 0, top: 0, previewTop: 0 }, refilter: true }
      case 'e':
        return row ? { state: s, outcome: { kind: 'print', row } } : { state: s }
      case 'y':
        return row ? { state: { ...s, status: `copied ${row.ref}` }, copy: row } : { state: s }
      case 'o':
        if (!row || c.printMode) return { state: s }
        if (!c.targets.some((t) => t.value !== row.agent)) return { state: { ...s, status: 'no agent to continue in' } }
        return {
          state: { ...s, chooser: { kind: 'continue', title: `continue ${row.ref} in`, choices: c.targets.filter((t) => t.value !== row.agent), at: 0 } },
        }
      case 'r':
        if (!row || c.printMode) return { state: s }
        return {
          state: {
            ...s,
            chooser: { kind: 'render', title: `render ${row.ref} (redacted) to`, choices: [{ value: 'html', label: 'HTML' }, { value: 'md', label: 'Markdown' }], at: 0 },
          },
        }
    }
    return { state: s0 }
  }
  // Typed text (a paste too); control characters that are not keys are dropped.
  const text = k.text.replace(/[\u0000-\u001f\u007f]/g, '')
  if (!text || k.meta) return { state: s0 }
  return { state: { ...s, query: s.query + text, cursor: 0, top: 0, previewTop: 0 }, refilter: true }
}
