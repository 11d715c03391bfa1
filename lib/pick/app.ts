/**
 * The picker on screen (Ink, a React renderer for terminals): it keeps the
 * view in step with the state, the streamed sessions, the filter and the
 * preview, and turns Ink's keys into `step()`'s. The screen is the
 * terminal's alternate one, so the shell's text is back as it was after.
 *
 * Ink and React are loaded when the picker starts (`import()`), so no other
 * command pays for them.
 */
import type { StoreContext } from '../context.js'
import { textSearch } from './fulltext.js'
import { parseKeys, step } from './keys.js'
import { loadSessions } from './load.js'
import { previewLines } from './preview.js'
import { SessionRows, type Row } from './rows.js'
import { filterRows } from './filter.js'
import { initialState, type Outcome, type PickState } from './state.js'
import { openTerminal } from './terminal.js'
import { layout, view } from './view.js'

/** What lives across several openings of the picker in one run (after `show` returns to it): sessions, query, cursor. */
export class PickSession {
  readonly rows = new SessionRows()
  state: PickState = initialState()
  loading = true
  private listeners = new Set<() => void>()
  private started = false

  constructor(private ctx: StoreContext) {}

  /** Starts discovery once; listeners hear of every batch. */
  start(): void {
    if (this.started) return
    this.started = true
    void loadSessions(this.ctx, { onRows: (rows) => (this.rows.add(rows), this.changed()) }).finally(() => {
      this.loading = false
      this.changed()
    })
  }

  on(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  private changed(): void {
    for (const fn of this.listeners) fn()
  }
}

export interface PickerOptions {
  ctx: StoreContext
  session: PickSession
  printMode: boolean
  color: boolean
  /** The agents a session can be continued in. */
  targets: Array<{ value: string; label: string }>
  /** The list pane's text when no store has a session. */
  emptyText: string
}

/** The Ink environment variable check reads CI variables once, at import: the picker always has a real terminal. */
async function loadInk() {
  const saved: Record<string, string | undefined> = {}
  for (const k of Object.keys(process.env)) if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_')) (saved[k] = process.env[k]), delete process.env[k]
  try {
    const [ink, react] = await Promise.all([import('ink'), import('react')])
    return { ink, React: react.default }
  } finally {
    Object.assign(process.env, saved)
  }
}

/**
 * Ink hides the cursor through cli-cursor, whose exit hook writes the show-cursor sequence to process.stderr
 * whatever stderr is: where stderr is not a terminal (`2> log`) that one write is dropped.
 */
let quieted = false
function quietCursorRestore(): void {
  if (process.stderr.isTTY || quieted) return
  quieted = true
  const write = process.stderr.write.bind(process.stderr) as (...a: unknown[]) => boolean
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (chunk === '\u001B[?25h' ? true : write(chunk, ...rest))) as typeof process.stderr.write
}

/** OSC 52: the terminal (and tmux, and ssh's far end) puts the text on the clipboard. */
function copySequence(text: string): string {
  return `\x1b]52;c;${Buffer.from(text).toString('base64')}\x07`
}

/** Shows the picker until a key ends it. */
export async function runPicker(o: PickerOptions): Promise<Outcome> {
  const term = openTerminal()
  const out = term.output
  const sess = o.session
  sess.start()
  quietCursorRestore()
  // Raw at once: what is typed while Ink loads is neither echoed over the screen nor held back for a newline.
  term.input.setRawMode(true)
  // Keys are read here, not in a React effect: React runs an unmounted component's effect cleanups later, so a
  // cleanup that paused the terminal ran after `show` returned, inside the next picker, which then quit on its own.
  // Until the list is on screen, keys wait in `pending`, in the order typed.
  // Decoded as UTF-8 across reads, so a character split between two reads is not garbled.
  const keys = { pending: '', live: false, handle: null as ((chunk: string) => void) | null }
  const onData = (chunk: string) => (keys.live && keys.handle ? keys.handle(chunk) : (keys.pending += chunk))
  term.input.setEncoding('utf8')
  term.input.on('data', onData)
  term.input.resume()
  const release = () => {
    keys.live = false
    term.input.off('data', onData)
    term.input.setRawMode(false)
    term.input.pause()
  }
  out.write('\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J')
  // Until Ink and React have loaded (a few hundred ms), the rows that have streamed in are drawn straight from the
  // view: the same lines Ink draws next, from the top left.
  const early = () => {
    const size = { width: out.columns || 80, height: out.rows || 24, color: o.color }
    const rows = filterRows(sess.rows.all(), sess.state.query)
    const d = { state: sess.state, rows, total: sess.rows.size, loading: sess.loading, empty: o.emptyText, preview: null, printMode: o.printMode }
    out.write('\x1b[H' + view(d, size).join('\n'))
  }
  let drawn = 0
  const stopEarly = sess.on(() => {
    if (Date.now() - drawn < 50) return
    drawn = Date.now()
    early()
  })
  early()
  let loaded: Awaited<ReturnType<typeof loadInk>>
  try {
    loaded = await loadInk()
  } catch (err) {
    release()
    out.write('\x1b[?25h\x1b[?1049l')
    term.close()
    throw err
  } finally {
    stopEarly()
  }
  const { ink, React } = loaded
  const { render, Box, Text, useApp } = ink
  const { useEffect, useMemo, useReducer, useRef, useState } = React
  const h = React.createElement
  let outcome: Outcome = { kind: 'quit' }

  function Picker() {
    const app = useApp()
    const [, redraw] = useReducer((n: number) => n + 1, 0)
    const [size, setSize] = useState({ width: out.columns || 80, height: out.rows || 24 })
    const [state, setState] = useState<PickState>(sess.state)
    const [text, setText] = useState<{ query: string; rows: Row[]; message: string }>({ query: '', rows: [], message: '' })
    const [preview, setPreview] = useState<{ ref: string; width: number; lines: string[] } | null>(null)
    const stateRef = useRef(state)
    stateRef.current = state
    sess.state = state

    useEffect(() => {
      const off = sess.on(redraw)
      // What streamed in (or finished) before this subscribed is drawn now.
      redraw()
      return off
    }, [])
    useEffect(() => {
      const onResize = () => setSize({ width: out.columns || 80, height: out.rows || 24 })
      out.on('resize', onResize)
      return () => void out.off('resize', onResize)
    }, [])

    const version = sess.rows.version
    const fuzzy = useMemo(() => filterRows(sess.rows.all(), state.query), [version, state.query])
    // Full-text search runs when typing pauses (each query reads the archive).
    useEffect(() => {
      if (state.mode !== 'text') return
      const q = state.query
      const t = setTimeout(() => {
        const r = textSearch(o.ctx, q, sess.rows)
        setText('rows' in r ? { query: q, rows: r.rows, message: q.trim() ? 'no matches in the archive' : 'type words to search the archive' } : { query: q, rows: [], message: r.message })
      }, 120)
      return () => clearTimeout(t)
    }, [state.mode, state.query])
    const rows = state.mode === 'text' ? text.rows : fuzzy
    const { listHeight, previewHeight } = layout(size.height)
    const sel = rows[state.cursor]

    // The preview follows the cursor after a short pause, so holding a key down does not render every session passed.
    useEffect(() => {
      if (!sel) return
      if (preview && preview.ref === sel.ref && preview.width === size.width) return
      const ctl = new AbortController()
      const t = setTimeout(() => {
        void previewLines(o.ctx, sel.ref, { width: size.width, color: o.color, signal: ctl.signal }).then((lines) => {
          if (!ctl.signal.aborted) setPreview({ ref: sel.ref, width: size.width, lines })
        })
      }, 60)
      return () => {
        clearTimeout(t)
        ctl.abort()
      }
    }, [sel?.ref, size.width])

    // Keys are read here rather than through Ink's useInput, which parses each read as one key: on a loaded
    // machine several arrive together (parseKeys takes them apart).
    const onKeys = (chunk: string) => {
      const ctxKeys: { rows: readonly Row[] } & Omit<Parameters<typeof step>[2], 'rows'> = {
        rows,
        listHeight,
        previewHeight,
        previewLines: preview && sel && preview.ref === sel.ref ? preview.lines.length : 0,
        printMode: o.printMode,
        targets: o.targets,
      }
      let next = stateRef.current
      for (const one of parseKeys(chunk)) {
        const r = step(next, one, ctxKeys)
        next = r.state
        if (r.copy) out.write(copySequence(r.copy.ref))
        if (r.outcome) {
          outcome = r.outcome
          // Stop reading at once: keys typed after the deciding one go to the program that comes next (less, a shell).
          release()
          stateRef.current = next
          setState(next)
          app.exit()
          return
        }
        // A later key of the same read (Enter after the text) acts on the list the new query gives.
        if (r.refilter) ctxKeys.rows = next.mode === 'fuzzy' ? filterRows(sess.rows.all(), next.query) : []
      }
      stateRef.current = next
      setState(next)
    }
    // The newest closure reads the keys (it sees the rows and sizes of this render); what was typed before the
    // list was on screen is read first, as one chunk.
    keys.handle = onKeys
    // (After release() the listener is gone, so `live` no longer matters.)
    useEffect(() => {
      const early = keys.pending
      keys.pending = ''
      keys.live = true
      if (early) onKeys(early)
    }, [])

    const empty = state.mode === 'text' ? text.message || 'searching…' : state.query ? 'no session matches' : o.emptyText
    const lines = view(
      {
        state,
        rows,
        total: sess.rows.size,
        loading: sess.loading,
        empty,
        preview: sel && preview && preview.ref === sel.ref ? preview.lines : null,
        printMode: o.printMode,
      },
      { width: size.width, height: size.height, color: o.color },
    )
    return h(Box, { flexDirection: 'column' }, ...lines.map((l, i) => h(Text, { key: i, wrap: 'truncate' }, l)))
  }

  out.write('\x1b[H')
  try {
    const inst = render(h(Picker), { stdout: out as unknown as NodeJS.WriteStream, stdin: term.input as unknown as NodeJS.ReadStream, exitOnCtrlC: false, patchConsole: false })
    await inst.waitUntilExit()
  } finally {
    release()
    out.write('\x1b[?25h\x1b[?1049l')
    term.close()
  }
  return outcome
}

