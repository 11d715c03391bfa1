/** What the picker shows at a moment: the query, the mode, where the cursor and the panes are, an open chooser. */
import type { Row } from './rows.js'

export type Mode = 'fuzzy' | 'text'

/** A small list over the screen: the agent to continue in, or the format to render to. */
export interface Chooser {
  kind: 'continue' | 'render'
  title: string
  choices: Array<{ value: string; label: string }>
  at: number
}

export interface PickState {
  mode: Mode
  query: string
  /** Index of the selected row in the visible list. */
  cursor: number
  /** First visible row of the list pane. */
  top: number
  /** First visible line of the preview pane. */
  previewTop: number
  chooser: Chooser | null
  /** One line under the list (copied, errors); cleared by the next key. */
  status: string
}

export function initialState(): PickState {
  return { mode: 'fuzzy', query: '', cursor: 0, top: 0, previewTop: 0, chooser: null, status: '' }
}

/** What the picker was left with. */
export type Outcome =
  | { kind: 'quit' }
  | { kind: 'interrupt' }
  | { kind: 'print'; row: Row }
  | { kind: 'show'; row: Row }
  | { kind: 'continue'; row: Row; target: string }
  | { kind: 'render'; row: Row; format: string }
