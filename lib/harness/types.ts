/**
 * The harness contract: what every agent format implements so the CLI and
 * the library can discover, read and write its sessions the same way.
 */
import type { Readable, Writable } from 'node:stream'
import type { HarnessId, Locator } from '../model.js'
import type { StoreContext } from '../context.js'

/** What discovery knows about a session, found cheaply (no full parse). */
export interface SessionInfo {
  harness: HarnessId
  /** Native session id. */
  id: string
  /** `<harness>:<id>` */
  sid: string
  /** The file, directory or database that holds it. */
  path: string
  locator: Locator
  cwd?: string
  title?: string
  model?: string
  agent_version?: string
  git_branch?: string
  created_at?: string
  updated_at?: string
  message_count?: number
  /** Session key of the parent, for sub-agents. */
  parent?: string
  archived?: boolean
  /** Size on disk in bytes, when cheap. */
  bytes?: number
}

export interface DiscoverOptions {
  /** Include archived / hidden sessions. */
  all?: boolean
}

export interface ReadOptions {
  /** Attach `native` (raw source text) to records; needed for byte-identical same-format writes. */
  native?: boolean
  /** Harness-specific switches (e.g. `inlineSpilled` for Claude Code). */
  [option: string]: unknown
}

export interface WriteOptions {
  /** Write here instead of the harness's store root (a directory, or a file for single-file formats). */
  out?: string
  /** Replace sessions that already exist. */
  force?: boolean
  /** Harness-specific switches (e.g. `provider` for Codex). */
  [option: string]: unknown
}

/** Reported by a sink for each session it wrote; the CLI prints one line each. */
export interface WrittenSession {
  harness: HarnessId
  /** Native id of the written session. */
  id: string
  /** Main file or directory written. */
  path: string
  /** Session key of the source record stream. */
  from?: string
  title?: string
  /** Anything the user must still do (e.g. how to import the file). */
  note?: string
}

/** A harness-specific CLI flag; the CLI passes its value as `opts[camelCase(name)]`. */
export interface CliFlag {
  name: string
  type: 'string' | 'boolean' | 'number'
  describe: string
  default?: string | boolean | number
}

export interface Harness {
  id: HarnessId
  /** Human name, e.g. "Claude Code". */
  name: string
  /** Environment variables that move this harness's store; `--home` clears them. */
  envVars: readonly string[]
  /** CLI flag that overrides the store root, e.g. `codex-home`. */
  rootFlag?: { name: string; describe: string }
  /** The store root in this context (honouring env, `--home`, and the root flag). */
  root(ctx: StoreContext): string
  /** Flags for reading (`cat`, `convert`), also accepted as `export const readFlags` from the harness index. */
  readFlags?: CliFlag[]
  /** Flags for writing (`write`, `convert`), also accepted as `export const writeFlags`. */
  writeFlags?: CliFlag[]
  /** Lists sessions cheaply. An absent store yields nothing, not an error. */
  discover?(ctx: StoreContext, opts?: DiscoverOptions): AsyncIterable<SessionInfo>
  /** Finds one session by native id (or unique prefix) or by path; null when not found. */
  resolve?(ctx: StoreContext, ref: string): Promise<SessionInfo | null>
  /** Object-mode Readable of FerryRecords for one session (possibly followed by its sub-agent sessions). */
  read?(ctx: StoreContext, session: SessionInfo, opts?: ReadOptions): Readable
  /** Object-mode Writable of FerryRecords; emits 'written' with a WrittenSession per session. */
  sink?(ctx: StoreContext, opts?: WriteOptions): Writable
}
