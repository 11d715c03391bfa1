/**
 * The common model: the record stream every harness reads into and writes from.
 *
 * This file is the contract. Sources emit `FerryRecord`s, transforms map them,
 * sinks consume them. The same shapes are the interchange format on the wire
 * (one JSON object per line, see docs/stream-format.md), so every field here is
 * plain JSON: no Dates, no Buffers, no class instances.
 *
 * A stream is a sequence of sessions that are never interleaved:
 *
 *   stream?  session  (message | boundary | native)*  end?   session ...
 *
 * Ids are stable: reading the same native data twice yields the same ids, so
 * downstream stores can deduplicate. See `recordId()` for the shape.
 */

/** Major.minor of the interchange format. Minor versions only add. */
export const FERRY_FORMAT = '1.0'

/**
 * A harness id, as used on the CLI (`--to codex`) and in session keys. The
 * model names no harness: the ids are the registry's (`HarnessId` in
 * lib/harness/registry.ts is the union of the registered ones).
 */
export type HarnessName = string

export type FerryRecord = StreamRec | SessionRec | MessageRec | BoundaryRec | NativeRec | EndRec

export type RecordKind = FerryRecord['kind']

interface Base {
  /** Session key: `<harness>:<native session id>`. */
  sid: string
  /** Stable record id: `<harness>:<native session id>:<locator>`. */
  id: string
  /** 0-based position within the session, when the reader knows it. */
  seq?: number
  /** The source bytes or row, for byte-faithful same-harness round trips. */
  native?: NativePass
  /** Harness-specific extras, keys namespaced `<harness>.<name>`. */
  x?: Record<string, unknown>
}

/** Optional preamble; may repeat when streams are concatenated. */
export interface StreamRec {
  kind: 'stream'
  ferry: string
  producer?: string
  created_at?: string
}

export interface Locator {
  /** File or directory the session was read from. */
  path?: string
  /** The file was a compressed copy (e.g. `.jsonl.zst`). */
  compressed?: boolean
  /** SQLite database, table and primary key. */
  db?: string
  table?: string
  pk?: string
}

export type ParentKind = 'subagent' | 'fork' | 'continuation'

export interface SessionLink {
  /** Session key of the parent. */
  sid: string
  kind: ParentKind
  /** The parent's tool call that started this session (Task / Agent / task). */
  tool_use_id?: string
  agent_id?: string
  /** Record id in the parent where this session branched off. */
  at?: string
}

/** Opens a session. Everything until the next `session` belongs to it. */
export interface SessionRec extends Base {
  kind: 'session'
  ferry: string
  source: { harness: HarnessName; agent_version?: string; locator: Locator }
  /** The harness's own session id (file stem, thread UUID, `ses_…`). */
  native_id: string
  cwd?: string
  title?: string
  /** Where the title came from: `custom`, `ai`, `summary`, `first_prompt`, … */
  title_source?: string
  model?: string
  provider?: string
  git?: { branch?: string; commit?: string; remote?: string }
  /** RFC 3339 UTC with milliseconds. */
  created_at?: string
  updated_at?: string
  parent?: SessionLink
  context_window?: number
  /** Set by the redact transform: tool inputs here are not what really ran. */
  redacted?: boolean
}

export type Role = 'user' | 'assistant' | 'system'

export type ContextKind =
  | 'environment'
  | 'instructions'
  | 'reminder'
  | 'summary'
  | 'command'
  | 'skill'
  | 'attachment'
  | 'other'

export interface MessageRec extends Base {
  kind: 'message'
  role: Role
  /** RFC 3339 UTC, or null when the source has none (readers never invent one). */
  ts: string | null
  /** Id of the previous record in the native conversation graph. */
  parent?: string
  branch?: { active?: boolean; sidechain?: boolean }
  /** The harness injected this message; no person or model typed it. */
  context?: boolean
  context_kind?: ContextKind | string
  model?: string
  /** Provider message id (Claude `message.id`, Codex item id). */
  api_message_id?: string
  /** Turn id (Codex `turn_id`, OpenCode parent user message). */
  turn?: string
  blocks: Block[]
  usage?: Usage
  stop_reason?: StopReason
  native_stop_reason?: string
}

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'pause_turn'
  | 'aborted'
  | 'error'
  | 'other'

export type Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock | FileBlock | UnknownBlock
export type BlockType = Block['type']

export interface TextBlock {
  type: 'text'
  text: string
}

/**
 * Model reasoning. `signature` and `encrypted` are opaque and bound to the
 * provider, the model and the exact text: a transform that changes `text`
 * must delete both.
 */
export interface ThinkingBlock {
  type: 'thinking'
  text: string
  signature?: string
  encrypted?: string
  /** Who can verify the opaque fields: `anthropic`, `openai`, `xai`, … */
  provider?: string
  redacted?: boolean
}

export interface ToolUseBlock {
  type: 'tool_use'
  /** Native call id (`toolu_…`, `call_…`); readers synthesize `<record id>#call` when none. */
  id: string
  /** Canonical name (Claude Code's vocabulary) once normalized, else the native name. */
  name: string
  /** The name the harness used, when it differs from `name`. */
  native_name?: string
  input: unknown
  /** Untouched original arguments, when `input` is not a pure key rename of them. */
  native_input?: unknown
}

export type ResultPart = TextBlock | ImageBlock

export interface ToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content: string | ResultPart[]
  is_error?: boolean
  exit_code?: number
  /** The harness's structured result; never sent to a model. */
  structured?: unknown
  /** The source or a transform stored only part of the output. */
  truncated?: { original_bytes?: number; original_chars?: number; ref?: Ref }
}

export interface Ref {
  path?: string
  url?: string
}

export interface ImageBlock {
  type: 'image'
  mime: string
  /** Base64 payload. */
  data?: string
  ref?: Ref
}

export interface FileBlock {
  type: 'file'
  mime: string
  name?: string
  data?: string
  ref?: Ref
}

/** A native block with no mapping, kept in place for same-harness writers. */
export interface UnknownBlock {
  type: 'unknown'
  native_type: string
  value: unknown
}

export interface Usage {
  /** Uncached input tokens (Anthropic semantics). */
  input_tokens?: number
  output_tokens?: number
  cache_read_tokens?: number
  cache_write_tokens?: number
  reasoning_tokens?: number
  total_tokens?: number
  cost_usd?: number
  scope?: 'message' | 'turn' | 'step'
}

/** A point where the model-visible history changes without being a message. */
export interface BoundaryRec extends Base {
  kind: 'boundary'
  type: 'compaction' | 'resume' | 'rewind' | string
  ts?: string | null
  summary?: string
  trigger?: 'auto' | 'manual' | string
  pre_tokens?: number
  /**
   * `false`: the turns before stay the live history (the source's summary cannot be read, e.g.
   * Codex's encrypted one): a sink writes the boundary as a visible note, never as a compaction
   * record that would start the target's model context after it (session-sink.ts).
   */
  replaces_history?: boolean
}

/** A native line or row with no modeled meaning, kept for same-harness writers. */
export interface NativeRec extends Base {
  kind: 'native'
  /** `<harness>/<type>`, e.g. `claude-code/file-history-snapshot`. */
  native_type: string
  ts?: string | null
}

export interface Warning {
  code: string
  detail?: string
  /** File and position (`path:line`) or record id. */
  at?: string
}

export interface EndRec extends Base {
  kind: 'end'
  complete?: boolean
  counts?: Record<string, number>
  warnings?: Warning[]
  title?: string
  updated_at?: string
  model?: string
}

/**
 * Source bytes. `raw` is the exact original line (not re-serialized) so a
 * writer of the same format reproduces bytes JSON.parse would alter.
 * Contract: a transform that changes a record's modeled content must delete
 * `native` (or rewrite it consistently).
 */
export interface NativePass {
  /** `<harness>/<container>@<agent version>`, e.g. `claude-code/jsonl@2.1.332`. */
  format: string
  /** 0-based physical line index in the (decompressed) file. */
  line?: number
  /** Which file of a multi-file session (`chat_history`, `updates`, …). */
  file?: string
  raw?: string
  table?: string
  pk?: string
  row?: unknown
  /** Further native units folded into this record (split Claude assistant lines). */
  merged?: Array<{ line?: number; file?: string; raw?: string; pk?: string; row?: unknown }>
}

/** `<harness>:<native session id>` */
export function sessionKey(harness: string, nativeId: string): string {
  return `${harness}:${nativeId}`
}

/** `<harness>:<native session id>:<locator>`; see docs/stream-format.md §ids. */
export function recordId(sid: string, locator: string): string {
  return `${sid}:${locator}`
}

/** Splits a session key at its first colon. */
export function parseSessionKey(sid: string): { harness: string; nativeId: string } {
  const i = sid.indexOf(':')
  return i < 0 ? { harness: '', nativeId: sid } : { harness: sid.slice(0, i), nativeId: sid.slice(i + 1) }
}

/**
 * The harness a session's records came from: the header's `source.harness`,
 * else the session key's prefix. The one rule every sink and transform uses.
 */
export function sourceHarness(rec: { sid?: unknown; source?: { harness?: unknown } }): string {
  const h = rec.source?.harness
  if (typeof h === 'string' && h !== '') return h
  return typeof rec.sid === 'string' ? parseSessionKey(rec.sid).harness : ''
}

/**
 * A call in a user's own message is a command the person typed (Claude Code's `/review look at
 * the login flow`): its text as typed, for a target that has no such call, so the words are
 * never dropped with it.
 */
export function typedCommand(b: ToolUseBlock): string {
  const args = isObj(b.input) && typeof b.input.args === 'string' ? b.input.args : ''
  return `${b.native_name ?? b.name} ${args}`.trim()
}

/** Text of a tool result's content, images left out. */
export function resultText(content: ToolResultBlock['content']): string {
  if (typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

/**
 * Whether a tool call failed: the result is flagged an error, or the command
 * exited non-zero (OpenCode keeps `status: completed` with `metadata.exit: 7`).
 * The one rule: readers set `is_error` by it and every writer that can flag
 * an error flags it by it (a stream from elsewhere may carry only the exit code).
 */
export function failedResult(b: Pick<ToolResultBlock, 'is_error' | 'exit_code'>): boolean {
  return b.is_error === true || (typeof b.exit_code === 'number' && b.exit_code !== 0)
}

/** Builds a session header with the format version filled in. */
export function sessionRecord(fields: Omit<SessionRec, 'kind' | 'ferry' | 'id'> & { id?: string }): SessionRec {
  return { kind: 'session', ferry: FERRY_FORMAT, id: fields.id ?? recordId(fields.sid, 'session'), ...fields } as SessionRec
}

/** A parsed JSON object of a native format, read field by field (the one JSON type of the harnesses). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>

/** Whether a parsed JSON value is an object (not null, not an array): the one such check. */
export function isObj(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
