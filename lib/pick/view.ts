/**
 * The picker's screen as lines: a prompt, the list, a rule naming the
 * selected session, the preview, and the key line. Every line is cut and
 * padded to the width by display columns (wide characters count twice), so
 * the terminal library only has to put them on screen; at 80×24 the list
 * gets 9 rows and the preview 11.
 */
import { basename } from 'node:path'
import sliceAnsi from 'slice-ansi'
import stringWidth from 'string-width'
import { MARK_CLOSE, MARK_OPEN } from '../archive/search.js'
import { KEY_HELP, KEY_HELP_PRINT } from './keys.js'
import type { Row } from './rows.js'
import type { PickState } from './state.js'

export interface Screen {
  width: number
  height: number
  color: boolean
}

export interface ViewData {
  state: PickState
  rows: readonly Row[]
  /** Sessions listed so far (all of them, before filtering). */
  total: number
  loading: boolean
  /** Shown in the list pane when there are no rows (no sessions, no archive, no hits). */
  empty: string
  preview: readonly string[] | null
  printMode: boolean
}

export interface Layout {
  listHeight: number
  previewHeight: number
}

/** Pane heights for a terminal of `height` rows: prompt, list, rule, preview, keys; the last row stays free. */
export function layout(height: number): Layout {
  const room = Math.max(2, height - 4)
  const listHeight = Math.max(1, Math.floor(room * 0.45))
  return { listHeight, previewHeight: Math.max(1, room - listHeight) }
}

/** `line` cut to `width` columns and padded to it. */
export function fit(line: string, width: number): string {
  let s = stringWidth(line) > width ? sliceAnsi(line, 0, width) : line
  const w = stringWidth(s)
  if (w < width) s += ' '.repeat(width - w)
  return s
}

function paint(color: boolean) {
  const sgr = (on: string, off: string) => (s: string) => (color && s ? `\x1b[${on}m${s}\x1b[${off}m` : s)
  return { dim: sgr('2', '22'), bold: sgr('1', '22'), inverse: sgr('7', '27'), cyan: sgr('36', '39'), magenta: sgr('35', '39'), yellow: sgr('33', '39') }
}

/** `2026-11-02T09:20:11Z` → `11-02 09:20` (local to what the store wrote). */
const when = (iso: string) => (iso ? iso.slice(5, 16).replace('T', ' ') : '     -     ')

function rowLine(r: Row, selected: boolean, width: number, p: ReturnType<typeof paint>, color: boolean): string {
  const agent = r.agent.length > 11 ? r.agent.slice(0, 10) + '…' : r.agent.padEnd(11)
  const tag = r.gone ? '[gone] ' : r.archived ? '[archive] ' : ''
  let text: string
  if (r.snippet !== undefined) {
    const mark = (s: string) => (color ? s.replaceAll(MARK_OPEN, '\x1b[1;33m').replaceAll(MARK_CLOSE, '\x1b[22;39m') : s.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, ''))
    text = `${p.magenta(tag)}${mark(r.snippet)}`
  } else {
    const dir = r.cwd ? basename(r.cwd) || r.cwd : '-'
    const cwd = dir.length > 16 ? dir.slice(0, 15) + '…' : dir.padEnd(16)
    text = `${p.dim(cwd)} ${p.magenta(tag)}${r.title || p.dim('(no title)')}`
  }
  const line = `${selected ? '>' : ' '} ${p.dim(when(r.when))} ${p.cyan(agent)} ${text}`
  const fitted = fit(line, width)
  // Without colour the selection is the `>` alone; with it, the whole row in reverse video, one colour.
  return selected && color ? `\x1b[7m${fitted.replace(/\x1b\[[0-9;]*m/g, '')}\x1b[27m` : fitted
}

/** The whole screen, `height - 1` lines of exactly `width` columns. */
export function view(d: ViewData, sc: Screen): string[] {
  const p = paint(sc.color)
  const { listHeight, previewHeight } = layout(sc.height)
  const s = d.state
  const out: string[] = []
  const label = s.mode === 'text' ? 'text' : 'pick'
  const count = s.mode === 'text' ? `${d.rows.length} hits` : `${d.rows.length}/${d.total}${d.loading ? ' …' : ''}`
  const prompt = `${p.bold(p.cyan(label + '>'))} ${s.query}${sc.color ? '\x1b[7m \x1b[27m' : '_'}`
  const gap = Math.max(1, sc.width - stringWidth(prompt) - count.length)
  out.push(fit(prompt + ' '.repeat(gap) + p.dim(count), sc.width))
  if (s.chooser) {
    const ch = s.chooser
    const lines = [p.bold(ch.title), ...ch.choices.map((c, i) => `${i === ch.at ? '>' : ' '} ${i === ch.at ? p.inverse(c.label) : c.label}`)]
    for (let i = 0; i < listHeight; i++) out.push(fit(lines[i] ?? '', sc.width))
  } else if (d.rows.length === 0) {
    const msg = d.loading ? 'loading sessions…' : d.empty
    for (let i = 0; i < listHeight; i++) out.push(fit(i === 0 ? `  ${msg}` : '', sc.width))
  } else {
    for (let i = 0; i < listHeight; i++) {
      const r = d.rows[s.top + i]
      out.push(r ? rowLine(r, s.top + i === s.cursor, sc.width, p, sc.color) : fit('', sc.width))
    }
  }
  const sel = d.rows[s.cursor]
  const prev = d.preview ?? []
  const shown = prev.length ? ` ${s.previewTop + 1}-${Math.min(prev.length, s.previewTop + previewHeight)}/${prev.length}${prev.length >= 400 ? '+' : ''}` : ''
  const rule = sel ? `── ${sel.ref}${sel.cwd ? `  ${sel.cwd}` : ''}${shown} ` : '── '
  out.push(fit(p.dim(rule + '─'.repeat(Math.max(0, sc.width - stringWidth(rule)))), sc.width))
  for (let i = 0; i < previewHeight; i++) {
    const line = sel ? (d.preview === null && i === 0 ? p.dim('  …') : (prev[s.previewTop + i] ?? '')) : ''
    out.push(fit(line, sc.width) + (sc.color ? '\x1b[0m' : ''))
  }
  out.push(fit(s.status ? p.yellow(s.status) : p.dim(d.printMode ? KEY_HELP_PRINT : KEY_HELP), sc.width))
  return out
}
