/**
 * The contract between the record walker (view.ts) and the three output
 * formats (terminal, Markdown, HTML). The walker decides what is shown
 * (ranges, sub-agent nesting, numbering); a format only turns one piece into
 * text, so each piece is written as soon as its record arrives.
 */
import type { BoundaryRec, MessageRec, SessionRec } from '../model.js'

export type ToolsMode = 'full' | 'brief' | 'none'
export type ImagesMode = 'inline' | 'strip'

export interface ViewOptions {
  /** Show thinking (dimmed / folded). Default true. */
  thinking: boolean
  tools: ToolsMode
  images: ImagesMode
  /** Inline images up to this many decoded bytes; bigger ones are a placeholder. */
  maxImageBytes: number
  /** Characters kept of one text or thinking block. */
  maxText: number
  /** Characters kept of one tool output (full mode; brief keeps a few lines). */
  maxOutput: number
  /** Terminal width (terminal format). */
  width: number
  /** ANSI colour (terminal format). */
  color: boolean
  /**
   * Show the context the agent injected (command caveats, reminders,
   * environment, instructions). Off: a run of it is one summary line.
   */
  context: boolean
}

/** A tool call seen earlier in the session, for labelling its result. */
export interface CallInfo {
  name: string
  arg: string
}

/** Where a piece sits: the session's position in the document and its sub-agent depth. */
export interface Place {
  /** 1-based session number in the document. */
  session: number
  depth: number
}

export interface SessionStats {
  messages: number
  shown: number
  toolCalls: number
  errors: number
  images: number
  context: number
  boundaries: number
}

export interface Footer {
  version: string
  /** Agent names of the sessions shown. */
  agents: string[]
  sessions: number
  subagents: number
  /** Counts by kind, or null when redaction was off. */
  redacted: Record<string, number> | null
  /** A session shown was redacted before it came here (its header's `redacted`). */
  redactedBefore?: boolean
}

export interface Format {
  /** Before anything (may be '' when the header needs the first session). */
  start(): string
  session(h: SessionRec, place: Place, agent: string, startedBy: CallInfo | undefined): string
  message(m: MessageRec, n: number, place: Place, calls: ReadonlyMap<string, CallInfo>): string
  boundary(b: BoundaryRec, place: Place): string
  /** `count` entries of injected context left out (messages `from`-`to`), as one line. */
  hiddenContext(count: number, from: number, to: number, place: Place): string
  /** A session's records are done (its sub-agents may still follow, nested in it). */
  sessionEnd(stats: SessionStats, place: Place): string
  /** Closes a session's container, after its sub-agents. */
  close(place: Place): string
  finish(footer: Footer): string
}
