/**
 * The harness contract: what every agent format implements so the CLI and
 * the library can discover, read and write its sessions the same way. A
 * harness folder's meta.ts is one `defineMeta({...})` call (its light
 * facts) and its index.ts one `defineHarness(meta, {...})`; manifest.ts
 * lists them, and everything that names harnesses (ids, `--to`
 * choices, help, the `--home` variable list, the test matrix) is derived
 * from that list.
 */
import type { Readable, Writable } from 'node:stream'
import type { Locator, NativePass, NativeRec, Usage } from '../model.js'
import type { StoreContext } from '../context.js'
import { asFerryError, FerryError } from '../errors.js'
import type { ToolVocabulary } from '../vocabulary/types.js'

/** What discovery knows about a session, found cheaply (no full parse). */
export interface SessionInfo {
  /** Harness id. */
  harness: string
  /** Native session id. */
  id: string
  /** `<harness>:<id>` */
  sid: string
  /** The file, directory or database that holds it. */
  path: string
  locator: Locator
  cwd?: string
  title?: string
  /** Where the title came from: `custom` (the user named it), `ai`, `summary`, `first_prompt`, … */
  title_source?: string
  model?: string
  agent_version?: string
  git_branch?: string
  created_at?: string
  updated_at?: string
  message_count?: number
  /** Session key of the parent, for sub-agents. */
  parent?: string
  /** Session key of the session this one was forked from: a session of its own (listed, archived), unlike a sub-agent. */
  fork_of?: string
  archived?: boolean
  /** Size on disk in bytes, when cheap. */
  bytes?: number
}

export interface DiscoverOptions {
  /** Include archived / hidden sessions. */
  all?: boolean
}

/** Options every reader takes; a harness adds its own typed ones through its `readFlags`. */
export interface ReadOptions {
  /** Attach `native` (raw source text) to records; needed for byte-identical same-format writes. */
  native?: boolean
}

/** Options every sink takes; a harness adds its own typed ones through its `writeFlags`. */
export interface WriteOptions {
  /** Write here instead of the harness's store root (a directory, or a file for single-file formats). */
  out?: string
  /** Replace sessions that already exist. */
  force?: boolean
}

/** Reported by a sink for each session it wrote; the CLI prints one line each. */
export interface WrittenSession {
  harness: string
  /** Native id of the written session. */
  id: string
  /** Main file or directory written. */
  path: string
  /** Session key of the source record stream. */
  from?: string
  title?: string
  /** Anything the user must still do (e.g. how to import the file). */
  note?: string
  /** The working directory the session was written for (its header's cwd). */
  cwd?: string
  /** A step the user must run before the session can be resumed (the client's import of a document ferry could not hand over). */
  pending?: { argv: string[]; cwd: string }
}

/**
 * A harness-specific option. On the CLI it is `--<harness id>-<kebab key>`
 * (`--codex-provider`); `aliases` keep older names working (`--provider`).
 * In the library it is `opts[key]`, typed from this declaration.
 */
export interface Flag {
  type: 'string' | 'boolean' | 'number'
  describe: string
  default?: string | boolean | number
  choices?: readonly string[]
  aliases?: readonly string[]
}

export type Flags = Record<string, Flag>

type FlagValue<F extends Flag> = F['choices'] extends readonly (infer C)[] ? C : F['type'] extends 'boolean' ? boolean : F['type'] extends 'number' ? number : string

/** The typed options a set of flags declares. */
export type OptionsOf<F extends Flags> = Flags extends F ? Record<string, unknown> : { [K in keyof F]?: FlagValue<F[K]> }

/** Where a harness keeps its sessions, and what moves it. */
export interface StoreSpec {
  /** Environment variables that move this store; `--home` clears them. */
  envVars: readonly string[]
  /** CLI flag that overrides the store root, e.g. `codex-home`. */
  flag?: { name: string; describe: string }
  /** The store root in this context (honouring env, `--home`, and the root flag). */
  root(ctx: StoreContext): string
}

/**
 * `store`: an agent's own store on disk. `stream`: the interchange stream
 * (stdin/stdout/files), asked about by kind, never by id.
 */
export type HarnessKind = 'store' | 'stream'

export interface HarnessSpec<Id extends string = string, RF extends Flags = Flags, WF extends Flags = Flags> {
  id: Id
  /** Human name, e.g. "Claude Code". */
  name: string
  kind: HarnessKind
  /** Holds copies of other harnesses' sessions (the archive): used when named or with `--archive`, never as one of "every store". */
  holdsCopies?: boolean
  store: StoreSpec
  /** The command that resumes a written session, for messages (`claude --resume <id>`). */
  resumeHint?: string
  /** `--out` names a store root (a directory the sink lays sessions out in): a file there is a usage error. */
  outIsStore?: boolean
  /** `--out FILE` holds exactly one session (an import document): several into one file are a usage error. */
  oneSessionPerFile?: boolean
  /**
   * Into a folder given with `--out DIR/`, the sink writes every session to files of its own directly
   * in it and shares nothing between sessions, so several sinks may write sessions at once
   * (`convert --jobs`; on a signal the main thread removes their temp files from DIR).
   * Absent: sessions are written one at a time.
   */
  independentSessions?: boolean
  /**
   * Whether the executable found on PATH for the resume command (its real
   * path, symlinks resolved) is this agent's, when the name is a common word
   * another program may use (Cursor's `agent`). Absent: any match is taken.
   */
  isOwnBinary?: (realPath: string) => boolean
  readFlags?: RF
  writeFlags?: WF
  /** Lists sessions cheaply. An absent store yields nothing, not an error. */
  discover?(ctx: StoreContext, opts: DiscoverOptions): AsyncIterable<SessionInfo>
  /** Finds one session by native id (or unique prefix) or by path; null when not found or not this harness's. */
  resolve?(ctx: StoreContext, ref: string): Promise<SessionInfo | null>
  /** Object-mode Readable of FerryRecords for one session (possibly followed by its sub-agent sessions). */
  read?(ctx: StoreContext, session: SessionInfo, opts: ReadOptions & OptionsOf<RF>): Readable
  /**
   * Object-mode Writable of FerryRecords (a SessionSink): emits 'written' per
   * session; a session it cannot write follows the sink policy (README, "Sink policy").
   */
  sink?(ctx: StoreContext, opts: WriteOptions & OptionsOf<WF>): Writable
  /**
   * Whether native source data is this harness's own, so a sink may write it
   * back verbatim. Default: `native.format` starts with `<id>/`.
   */
  ownsNative?(native: NativePass): boolean
  /** The harness's tool vocabulary (its names and argument keys ↔ canonical). */
  tools: ToolVocabulary
  /** How the agent runs a command of ferry's when a turn or a session ends (`ferry hooks`); absent: it has no hook ferry uses. */
  hooks?: HookSpec
  /**
   * Usage a `native` record (read with `native: true`) carries that no message record does: a
   * response that was billed but is not in the conversation read (Claude Code's entries off the
   * active branch). `ferry stats` counts it. Absent: every response's usage is on its message.
   */
  nativeUsage?(rec: NativeRec): NativeUsage | undefined
  /** What `ferry doctor` knows of the agent (its program, the versions verified, what a scan counts as understood); absent: not checked. */
  doctor?: DoctorSpec
}

/**
 * `ferry doctor`'s data for one agent (`lib/harness/<id>/doctor.ts`). The same data is the
 * format doc's `Last verified` line and its row in docs/formats/README.md (both checked by a test).
 */
export interface DoctorSpec {
  /** Executables the agent installs (the first found on PATH is taken). */
  bins: readonly string[]
  /** npm packages whose package.json, above the executable's real path, gives the version without running it. */
  packages?: readonly string[]
  /** The client and versions the format was last verified against; `versions` empty: never run here (`how` says against what). */
  verified: { client: string; versions: readonly string[]; date: string; how: string }
  /** What is known not to be covered, for the compatibility table. */
  notCovered: readonly string[]
  /**
   * The `native_type`s of `native` records and `unknown` blocks that the reader produces on purpose (exact,
   * or a prefix ending in `*`). Anything else a scan finds is a type ferry does not understand.
   */
  known: readonly string[]
  /**
   * For a store kept in SQLite: every table of the verified schema and its columns (`['*']`: any, for
   * tables ferry never reads). A table or column of a session's database not listed is reported.
   */
  tables?: Readonly<Record<string, readonly string[]>>
}

/**
 * An agent's own hook mechanism, as `ferry hooks` edits it: one settings file
 * that ferry's entry is added to and removed from, without touching the rest.
 */
export interface HookSpec {
  /** The file the agent reads its hooks from. */
  file(ctx: StoreContext): string
  /** When the agent runs the hook, for messages ("Stop and SessionEnd"). */
  events: string
  /** The file's text with ferry's hook added (`text` null: no file yet); `command` is the argv to run, absolute. */
  add(text: string | null, command: string[]): string
  /** The file's text without ferry's hook. */
  remove(text: string): string
  /** Whether the text holds ferry's hook. */
  has(text: string | null): boolean
  /** The session one hook invocation is about, as a ref (`harness:id` or a path), from what the agent passed; null: none. */
  session(payload: { stdin: string; args: string[] }): string | null
  /** The agent passes its payload on stdin. */
  stdin: boolean
  /** How long the agent lets a hook run (ms): ferry's hook returns within it and leaves a longer archive to a detached process. */
  budgetMs: number
}

/** A billed response found in a native record (`nativeUsage`). */
export interface NativeUsage {
  usage: Usage
  ts?: string | null
  model?: string
  /** The provider's response id, so a response written twice is counted once. */
  api_message_id?: string
}

/** A registered harness: the spec with its defaults filled in. */
export interface Harness<Id extends string = string, RF extends Flags = Flags, WF extends Flags = Flags> extends HarnessSpec<Id, RF, WF> {
  readFlags: RF
  writeFlags: WF
  ownsNative(native: NativePass): boolean
  /** Shorthand for `store.root(ctx)`. */
  root(ctx: StoreContext): string
}

/** The contract's parts a harness may lack: `discover` (listing), `read` (a source), `sink` (a writer). */
export type HarnessPart = 'discover' | 'read' | 'sink'

/** The facts of a harness that need none of its code: its folder's meta.ts gives them, defineHarness takes them. */
type MetaKeys = 'id' | 'name' | 'kind' | 'holdsCopies' | 'store' | 'resumeHint' | 'outIsStore' | 'oneSessionPerFile' | 'independentSessions' | 'readFlags' | 'writeFlags' | 'tools'

/**
 * A harness's light facts (its folder's `meta.ts`): what option parsing, `--help`, error messages, `ferry search`
 * and `ferry ls --archive` need, from files that load no reader, writer or discovery (lib/harness/manifest.ts).
 */
export interface HarnessMeta<Id extends string = string, RF extends Flags = Flags, WF extends Flags = Flags> extends Pick<HarnessSpec<Id, RF, WF>, MetaKeys> {
  /** Which of the optional parts its index.ts gives (defineHarness checks), so a listing knows without loading them. */
  parts: readonly HarnessPart[]
}

/** The rest of a harness: its code (index.ts imports it from the folder's other files). */
export type HarnessParts<RF extends Flags = Flags, WF extends Flags = Flags> = Omit<HarnessSpec<string, RF, WF>, MetaKeys>

/** A folder's meta.ts is this call. */
export function defineMeta<const Id extends string, RF extends Flags = {}, WF extends Flags = {}>(meta: HarnessMeta<Id, RF, WF>): HarnessMeta<Id, RF, WF> {
  return meta
}

/** The one way to declare a harness: its folder's index.ts is this call, of its meta and its parts. */
export function defineHarness<const Id extends string, RF extends Flags = {}, WF extends Flags = {}>(meta: HarnessMeta<Id, RF, WF>, parts: HarnessParts<RF, WF>): Harness<Id, RF, WF> {
  const { parts: declared, ...facts } = meta
  const spec: HarnessSpec<Id, RF, WF> = { ...facts, ...parts }
  for (const p of ['discover', 'read', 'sink'] as const) {
    if (declared.includes(p) !== Boolean(spec[p])) throw new FerryError(`lib/harness/${meta.id}/meta.ts: parts ${declared.includes(p) ? 'names' : 'leaves out'} ${p}, index.ts ${spec[p] ? 'gives' : 'does not give'} it`, { code: 'internal' })
  }
  const prefix = `${spec.id}/`
  return {
    ...spec,
    readFlags: (spec.readFlags ?? {}) as RF,
    writeFlags: (spec.writeFlags ?? {}) as WF,
    ownsNative: spec.ownsNative ?? ((n) => typeof n?.format === 'string' && n.format.startsWith(prefix)),
    root: (ctx) => spec.store.root(ctx),
    ...(spec.discover ? { discover: guardedDiscover(spec.id, spec.discover, (ctx) => spec.store.root(ctx)) } : {}),
  }
}

/**
 * A discovery that throws (a bug, or a store shape no one foresaw) is one
 * located `discover-failed` report for its harness: `ferry ls` and `--from`
 * go on with every other harness instead of failing as a whole.
 */
function guardedDiscover(id: string, discover: NonNullable<HarnessSpec<string>['discover']>, root: (ctx: StoreContext) => string): NonNullable<HarnessSpec<string>['discover']> {
  return async function* (ctx, opts) {
    try {
      yield* discover(ctx, opts)
    } catch (err) {
      const e = asFerryError(err, 'discover-failed')
      ctx.diagnostics.error('discover-failed', `listing stopped: ${e.message}`, e.position ?? { file: root(ctx) }, id)
    }
  }
}

/** The CLI name of a harness flag: `--<id>-<kebab key>`. */
export function flagName(harnessId: string, key: string): string {
  return `${harnessId}-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
}
