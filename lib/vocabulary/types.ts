/**
 * A harness's tool vocabulary: how its tool names and argument keys map to
 * the canonical set (Claude Code's names and keys) and back. Each harness
 * declares one in `lib/harness/<id>/tools.ts`; the engine in this folder
 * receives them from the registry and names no harness itself.
 */
import type { MessageRec } from '../model.js'

export type ToolInput = Record<string, unknown>

export interface NativeCall {
  name: string
  input: unknown
  /** The call is a free-form (non-JSON) tool: `input` is the raw string (Codex `custom_tool_call`). */
  freeform?: boolean
}

/** Extra facts a reader may know about a call (e.g. an ACP tool `kind`). */
export interface ToolHint {
  /** ACP tool kind: `read`, `edit`, `delete`, `move`, `search`, `execute`, `think`, `fetch`, `other`. */
  kind?: string
}

/** Native → canonical, for one native tool name. */
export interface Rule {
  /** Canonical name. */
  canon: string
  /** Pure key renames, native → canonical. Keys not listed are kept as they are. */
  keys?: Record<string, string>
  /**
   * A value conversion; the result is the canonical input (may also change
   * the name). Returns null when the input does not have the expected shape.
   * Anything with `to` keeps `native_input`.
   */
  to?: (input: ToolInput, raw: unknown) => { name?: string; input: ToolInput } | null
}

/** Canonical → this harness's call, for one canonical tool name; null when the input does not fit. */
export type Out = (input: ToolInput, raw: unknown) => NativeCall | null

export interface ToolVocabulary {
  /** Native tool name → rule to canonical. */
  rules: Record<string, Rule>
  /** Canonical tool name → this harness's own call. */
  targets: Record<string, Out>
  /**
   * Maps a call whose name is not in `rules` by what the reader knows of it
   * (for harnesses that randomise tool names). Null: leave it native.
   */
  byHint?(hint: ToolHint, input: unknown): { name: string; input: ToolInput } | null
  /** Hints this harness's reader left on a message, by tool call id (where it keeps them is its own business). */
  hints?(m: MessageRec): Record<string, ToolHint> | undefined
  /** Whether a same-harness call of this name and input is written free-form (`NativeCall.freeform`). */
  freeform?(name: string, input: unknown): boolean
}

/** Canonical names the vocabularies map to (for docs and tests). */
export const CANONICAL_TOOLS = [
  'Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'ApplyPatch', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch',
  'TodoWrite', 'Task', 'Skill', 'AskUserQuestion', 'NotebookEdit', 'WriteStdin',
] as const

/** A vocabulary that maps nothing (the interchange stream keeps whatever names it carries). */
export const EMPTY_VOCABULARY: ToolVocabulary = { rules: {}, targets: {} }
