/**
 * The tool vocabulary table: every harness's tool names and argument keys
 * mapped to one canonical set (Claude Code's names and keys), and back.
 * Readers emit native names; the normalize-tools transform and every writer
 * use this one table. Sources and the reasoning per row: docs/tools.md.
 *
 * Rules of the table (common-model.md §8):
 * - `toCanonical` sets `name`/`input` to canonical form, keeps the original
 *   name in `native_name` (when it differs) and the original arguments in
 *   `native_input` whenever the mapping is more than a key rename. Pure key
 *   renames are reversed from this table, so they keep no copy.
 * - Unknown tools, `mcp__*` and slash commands (`/…`) pass through untouched;
 *   nothing is guessed from a name that is not in the table.
 * - A mapping whose input does not have the expected shape is not applied:
 *   the block stays native rather than half-converted.
 */
import type { ToolUseBlock } from '../model.js'
type HarnessId = string
import { lowerPatch, parsePatch, patchFiles, renderAdd, renderEdits } from './patch.js'
import { argvToCommand, isStringArray } from './shell.js'

export interface NativeCall {
  name: string
  input: unknown
  /**
   * The call is a free-form (non-JSON) tool: `input` is the raw string.
   * Codex writes such calls as `custom_tool_call` (only `apply_patch`).
   */
  freeform?: boolean
}

/** Extra facts a reader may know about a call (Grok's ACP `kind`). */
export interface ToolHint {
  /** ACP tool kind: `read`, `edit`, `delete`, `move`, `search`, `execute`, `think`, `fetch`, `other`. */
  kind?: string
}

type In = Record<string, unknown>

interface Rule {
  /** Canonical name. */
  canon: string
  /** Pure key renames, native → canonical. Keys not listed are kept as they are. */
  keys?: Record<string, string>
  /**
   * A value conversion; the result is the canonical input (may also change
   * the name). Returns null when the input does not have the expected shape.
   * Anything with `to` keeps `native_input`.
   */
  to?: (input: In, raw: unknown) => { name?: string; input: In } | null
}

const isObj = (v: unknown): v is In => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** Builds an object leaving out undefined values, in the order given. */
function obj(entries: Array<[string, unknown]>): In {
  const o: In = {}
  for (const [k, v] of entries) if (v !== undefined) o[k] = v
  return o
}

function rename(input: In, keys: Record<string, string>): In {
  const o: In = {}
  for (const k of Object.keys(input)) o[keys[k] ?? k] = input[k]
  return o
}

function invertible(keys: Record<string, string>): boolean {
  const v = Object.values(keys)
  return new Set(v).size === v.length
}

function invert(keys: Record<string, string>): Record<string, string> {
  const o: Record<string, string> = {}
  for (const [k, v] of Object.entries(keys)) o[v] = k
  return o
}

/* ------------------------------------------------------------------------ */
/* Shared conversions                                                       */
/* ------------------------------------------------------------------------ */

/** Patch text → lowered Write/Edit when exact, else ApplyPatch {patch, files}. */
function fromPatch(text: string): { name: string; input: In } | null {
  const ops = parsePatch(text)
  if (!ops) return { name: 'ApplyPatch', input: { patch: text } }
  const low = lowerPatch(ops)
  if (low) return low
  return { name: 'ApplyPatch', input: { patch: text, files: patchFiles(ops) } }
}

/** TodoWrite from `[{content|step, status}]`; everything else stays in native_input. */
function todos(list: unknown, textKey: string): In[] | null {
  if (!Array.isArray(list)) return null
  const out: In[] = []
  for (const t of list) {
    if (!isObj(t) || typeof t[textKey] !== 'string') return null
    const content = t[textKey] as string
    out.push(obj([['content', content], ['status', str(t.status) ?? 'pending'], ['activeForm', str(t.activeForm) ?? content]]))
  }
  return out
}

/* ------------------------------------------------------------------------ */
/* Native → canonical, per harness                                          */
/* ------------------------------------------------------------------------ */

const CLAUDE: Record<string, Rule> = {
  // 2.1.x calls the sub-agent tool `Agent`; older builds `Task` (canonical).
  Agent: { canon: 'Task' },
}

function codexShell(input: In): { input: In } | null {
  const c = input.command
  const command = isStringArray(c) ? argvToCommand(c) : str(c)
  if (command === undefined) return null
  return { input: obj([['command', command], ['timeout', num(input.timeout_ms)], ['workdir', str(input.workdir) ?? str(input.working_directory)]]) }
}

const CODEX: Record<string, Rule> = {
  shell: { canon: 'Bash', to: codexShell },
  'container.exec': { canon: 'Bash', to: codexShell },
  shell_command: { canon: 'Bash', to: codexShell },
  // Hosted shell item: the reader passes `action` (or the whole item) as input.
  local_shell_call: { canon: 'Bash', to: (i) => codexShell(isObj(i.action) ? i.action : i) },
  local_shell: { canon: 'Bash', to: (i) => codexShell(isObj(i.action) ? i.action : i) },
  exec_command: {
    canon: 'Bash',
    to: (i) => {
      const cmd = str(i.cmd) ?? (isStringArray(i.cmd) ? argvToCommand(i.cmd) : undefined)
      if (cmd === undefined) return null
      return { input: obj([['command', cmd], ['workdir', str(i.workdir)]]) }
    },
  },
  apply_patch: {
    canon: 'ApplyPatch',
    to: (i, raw) => {
      const text = typeof raw === 'string' ? raw : str(i.input) ?? str(i.patch)
      return text === undefined ? null : fromPatch(text)
    },
  },
  update_plan: {
    canon: 'TodoWrite',
    to: (i) => {
      const t = todos(i.plan, 'step')
      return t ? { input: { todos: t } } : null
    },
  },
  view_image: { canon: 'Read', keys: { path: 'file_path' } },
  read_file: { canon: 'Read' },
  list_dir: { canon: 'LS', keys: { dir_path: 'path' } },
  grep_files: { canon: 'Grep', keys: { include: 'glob', limit: 'head_limit' } },
  web_search: { canon: 'WebSearch', to: codexSearch },
  web_search_call: { canon: 'WebSearch', to: codexSearch },
  request_user_input: { canon: 'AskUserQuestion' },
  write_stdin: { canon: 'WriteStdin' },
  // Code mode `exec` (JavaScript calling nested tools) and multi-agent
  // `spawn_agent` have no canonical counterpart: not listed, kept native.
}

function codexSearch(i: In): { name?: string; input: In } | null {
  const a = isObj(i.action) ? i.action : i
  if (a.type === 'open_page' && typeof a.url === 'string') return { name: 'WebFetch', input: { url: a.url } }
  const q = str(a.query) ?? (isStringArray(a.queries) && a.queries.length > 0 ? a.queries.join(' | ') : undefined)
  if (q === undefined) return null
  return { input: { query: q } }
}

const OPENCODE: Record<string, Rule> = {
  bash: { canon: 'Bash' },
  read: { canon: 'Read', keys: { filePath: 'file_path' } },
  write: { canon: 'Write', keys: { filePath: 'file_path' } },
  edit: { canon: 'Edit', keys: { filePath: 'file_path', oldString: 'old_string', newString: 'new_string', replaceAll: 'replace_all' } },
  multiedit: {
    canon: 'MultiEdit',
    to: (i) => {
      if (typeof i.filePath !== 'string' || !Array.isArray(i.edits)) return null
      const edits: In[] = []
      for (const e of i.edits) {
        if (!isObj(e)) return null
        edits.push(obj([['old_string', e.oldString], ['new_string', e.newString], ['replace_all', e.replaceAll]]))
      }
      return { input: { file_path: i.filePath, edits } }
    },
  },
  apply_patch: { canon: 'ApplyPatch', to: (i) => (typeof i.patchText === 'string' ? fromPatch(i.patchText) : null) },
  patch: { canon: 'ApplyPatch', to: (i) => (typeof i.patchText === 'string' ? fromPatch(i.patchText) : null) },
  glob: { canon: 'Glob' },
  grep: { canon: 'Grep', keys: { include: 'glob' } },
  list: { canon: 'LS' },
  webfetch: {
    canon: 'WebFetch',
    // OpenCode's timeout is in seconds; canonical timeouts are milliseconds.
    to: (i) => (typeof i.url !== 'string' ? null : { input: obj([['url', i.url], ['format', i.format], ['timeout', num(i.timeout) !== undefined ? (i.timeout as number) * 1000 : undefined]]) }),
  },
  websearch: { canon: 'WebSearch' },
  todowrite: {
    canon: 'TodoWrite',
    to: (i) => {
      const t = todos(i.todos, 'content')
      return t ? { input: { todos: t } } : null
    },
  },
  task: { canon: 'Task' },
  skill: { canon: 'Skill', keys: { name: 'skill' } },
  question: { canon: 'AskUserQuestion' },
}

function cursorShell(i: In): { input: In } | null {
  if (typeof i.command !== 'string') return null
  const until = num(i.block_until_ms)
  return {
    input: obj([
      ['command', i.command],
      // Grok's block_until_ms may be a float: only an integral value is a timeout.
      ['timeout', num(i.timeout) ?? (until !== undefined && Number.isInteger(until) ? until : undefined)],
      ['description', str(i.description) ?? str(i.explanation)],
      ['run_in_background', typeof i.is_background === 'boolean' ? i.is_background : undefined],
      ['workdir', str(i.cwd) || str(i.workdir) || undefined],
    ]),
  }
}

function cursorRead(i: In): { input: In } | null {
  const file = str(i.path) ?? str(i.target_file) ?? str(i.targetFile) ?? str(i.file_path)
  if (file === undefined) return null
  let offset = num(i.offset)
  let limit = num(i.limit)
  const start = num(i.start_line_one_indexed)
  const end = num(i.end_line_one_indexed_inclusive)
  if (offset === undefined && start !== undefined && !i.should_read_entire_file) {
    offset = start
    if (end !== undefined) limit = end - start + 1
  }
  return { input: obj([['file_path', file], ['offset', offset], ['limit', limit]]) }
}

const CURSOR_GROK: Record<string, Rule> = {
  Shell: { canon: 'Bash', to: cursorShell },
  run_terminal_cmd: { canon: 'Bash', to: cursorShell },
  run_terminal_command_v2: { canon: 'Bash', to: cursorShell },
  Read: { canon: 'Read', keys: { path: 'file_path' } },
  read_file: { canon: 'Read', to: cursorRead },
  read_file_v2: { canon: 'Read', keys: { targetFile: 'file_path' } },
  Write: { canon: 'Write', keys: { path: 'file_path', contents: 'content' } },
  StrReplace: { canon: 'Edit', keys: { path: 'file_path' } },
  search_replace: { canon: 'Edit', keys: { path: 'file_path', target_file: 'file_path' } },
  Glob: { canon: 'Glob', keys: { glob_pattern: 'pattern', target_directory: 'path' } },
  glob_file_search: { canon: 'Glob', keys: { glob_pattern: 'pattern', target_directory: 'path', globPattern: 'pattern', targetDirectory: 'path' } },
  Grep: { canon: 'Grep' },
  grep: { canon: 'Grep' },
  ripgrep_raw_search: { canon: 'Grep' },
  list_dir: { canon: 'LS', keys: { target_directory: 'path', relative_workspace_path: 'path', dir_path: 'path' } },
  WebSearch: { canon: 'WebSearch', keys: { search_term: 'query' } },
  web_search: { canon: 'WebSearch', keys: { search_term: 'query' } },
  WebFetch: { canon: 'WebFetch' },
  TodoWrite: { canon: 'TodoWrite', to: (i) => ((t) => (t ? { input: { todos: t } } : null))(todos(i.todos, 'content')) },
  todo_write: { canon: 'TodoWrite', to: (i) => ((t) => (t ? { input: { todos: t } } : null))(todos(i.todos, 'content')) },
  Task: { canon: 'Task' },
  task: { canon: 'Task' },
  AskQuestion: { canon: 'AskUserQuestion' },
  EditNotebook: { canon: 'NotebookEdit' },
  // Delete, SemanticSearch, ReadLints, CallMcpTool, edit_file: no canonical counterpart.
}

const ZCODE: Record<string, Rule> = { ...OPENCODE, ...CLAUDE }

const TABLES: Record<string, Record<string, Rule>> = {
  'claude-code': CLAUDE,
  codex: CODEX,
  opencode: OPENCODE,
  cursor: CURSOR_GROK,
  grok: CURSOR_GROK,
  zcode: ZCODE,
}

/**
 * Grok can randomise tool and parameter names; its ACP `kind` still says
 * what the call is. The fallback maps the name only when every required
 * canonical argument is found under a known alias, never by position.
 */
const KIND_FALLBACK: Record<string, { canon: string; need: Record<string, string[]>; opt?: Record<string, string[]> }> = {
  execute: { canon: 'Bash', need: { command: ['command', 'cmd'] }, opt: { description: ['description', 'explanation'], workdir: ['cwd', 'workdir'] } },
  read: { canon: 'Read', need: { file_path: ['file_path', 'path', 'target_file', 'filePath', 'targetFile'] }, opt: { offset: ['offset'], limit: ['limit'] } },
  edit: {
    canon: 'Edit',
    need: { file_path: ['file_path', 'path', 'target_file', 'filePath'], old_string: ['old_string', 'oldString', 'old_str'], new_string: ['new_string', 'newString', 'new_str'] },
  },
  fetch: { canon: 'WebFetch', need: { url: ['url'] } },
}

function byKind(kind: string, input: unknown): { name: string; input: In } | null {
  const k = KIND_FALLBACK[kind]
  if (!k || !isObj(input)) return null
  const out: In = {}
  for (const [canon, aliases] of Object.entries(k.need)) {
    const a = aliases.find((x) => typeof input[x] === 'string')
    if (a === undefined) return null
    out[canon] = input[a]
  }
  for (const [canon, aliases] of Object.entries(k.opt ?? {})) {
    const a = aliases.find((x) => input[x] !== undefined)
    if (a !== undefined) out[canon] = input[a]
  }
  return { name: k.canon, input: out }
}

function passthrough(name: string): boolean {
  return name.startsWith('mcp__') || name.startsWith('/')
}

/**
 * Native → canonical. Returns a block whose `name`/`input` are canonical and
 * whose `native_name`/`native_input` keep the original when they differ.
 * Unknown tools and `mcp__*` pass through untouched. Idempotent.
 */
export function toCanonical(harness: string, block: ToolUseBlock, hint?: ToolHint): ToolUseBlock {
  if (block.native_name !== undefined || block.native_input !== undefined || passthrough(block.name)) return block
  const table = TABLES[harness]
  if (!table) return block
  const rule = Object.prototype.hasOwnProperty.call(table, block.name) ? table[block.name] : undefined
  let name: string
  let input: unknown
  let keepNative: boolean
  if (rule) {
    const raw = block.input
    if (rule.to) {
      const r = rule.to(isObj(raw) ? raw : {}, raw)
      if (!r) return block
      name = r.name ?? rule.canon
      input = r.input
      keepNative = true
    } else {
      if (!isObj(raw)) {
        if (rule.canon === block.name) return block
        name = rule.canon
        input = raw
        keepNative = false
      } else {
        name = rule.canon
        input = rule.keys ? rename(raw, rule.keys) : raw
        // A rename is reversed from the table only when it is recognisable
        // (the name changed) and unambiguous (one native key per canonical key).
        const changed = rule.keys !== undefined && Object.keys(raw).some((k) => rule.keys![k] !== undefined)
        keepNative = changed && (name === block.name || !invertible(rule.keys!))
      }
    }
  } else if (hint?.kind && harness === 'grok') {
    const r = byKind(hint.kind, block.input)
    if (!r) return block
    name = r.name
    input = r.input
    keepNative = true
  } else {
    return block
  }
  const out: ToolUseBlock = { ...block, name, input }
  if (name !== block.name) out.native_name = block.name
  if (keepNative) out.native_input = block.input
  return out
}

/* ------------------------------------------------------------------------ */
/* Canonical → target                                                       */
/* ------------------------------------------------------------------------ */

type Out = (input: In, raw: unknown) => NativeCall | null

/** A target entry that renames the tool and (optionally) its keys, canonical → native. */
const as =
  (name: string, keys?: Record<string, string>): Out =>
  (i) => ({ name, input: keys ? rename(i, keys) : i })

function invertRule(name: string, rule: Rule): Out {
  return as(name, rule.keys ? invert(rule.keys) : undefined)
}

function todoItems(i: In): In[] {
  return Array.isArray(i.todos) ? i.todos.filter(isObj) : []
}

const TO_CLAUDE: Record<string, Out> = {
  Task: as('Agent'),
}

const TO_ZCODE: Record<string, Out> = {}

const TO_CODEX: Record<string, Out> = {
  // 0.171 replays `exec_command` {cmd, workdir} function calls from history
  // (the classic-model dialect); `timeout`/`description` have no slot there.
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'exec_command', input: obj([['cmd', i.command], ['workdir', str(i.workdir)]]) }),
  Write: (i) =>
    typeof i.file_path !== 'string' || typeof i.content !== 'string' ? null : { name: 'apply_patch', input: renderAdd(i.file_path, i.content), freeform: true },
  Edit: (i) =>
    typeof i.file_path !== 'string' || typeof i.old_string !== 'string' || typeof i.new_string !== 'string' || i.replace_all === true
      ? null
      : { name: 'apply_patch', input: renderEdits(i.file_path, [{ old_string: i.old_string, new_string: i.new_string }]), freeform: true },
  MultiEdit: (i) => {
    if (typeof i.file_path !== 'string' || !Array.isArray(i.edits)) return null
    const edits = i.edits.filter(isObj)
    if (edits.some((e) => typeof e.old_string !== 'string' || typeof e.new_string !== 'string' || e.replace_all === true)) return null
    return { name: 'apply_patch', input: renderEdits(i.file_path, edits as Array<{ old_string: string; new_string: string }>), freeform: true }
  },
  ApplyPatch: (i) => (typeof i.patch !== 'string' ? null : { name: 'apply_patch', input: i.patch, freeform: true }),
  TodoWrite: (i) => ({ name: 'update_plan', input: { plan: todoItems(i).map((t) => obj([['step', t.content], ['status', t.status]])) } }),
  WriteStdin: as('write_stdin'),
  AskUserQuestion: as('request_user_input'),
  LS: as('list_dir', { path: 'dir_path' }),
}

const TO_OPENCODE: Record<string, Out> = {
  Bash: as('bash'),
  Read: invertRule('read', OPENCODE.read!),
  Write: invertRule('write', OPENCODE.write!),
  Edit: invertRule('edit', OPENCODE.edit!),
  MultiEdit: (i) => ({
    name: 'multiedit',
    input: obj([
      ['filePath', i.file_path],
      ['edits', Array.isArray(i.edits) ? i.edits.filter(isObj).map((e) => obj([['filePath', i.file_path], ['oldString', e.old_string], ['newString', e.new_string], ['replaceAll', e.replace_all]])) : []],
    ]),
  }),
  ApplyPatch: (i) => (typeof i.patch !== 'string' ? null : { name: 'apply_patch', input: { patchText: i.patch } }),
  Glob: as('glob'),
  Grep: invertRule('grep', OPENCODE.grep!),
  LS: as('list'),
  WebFetch: (i) => ({
    name: 'webfetch',
    input: obj([['url', i.url], ['format', str(i.format) ?? 'markdown'], ['timeout', num(i.timeout) !== undefined ? Math.ceil((i.timeout as number) / 1000) : undefined]]),
  }),
  WebSearch: as('websearch'),
  TodoWrite: (i) => ({
    name: 'todowrite',
    input: { todos: todoItems(i).map((t, n) => obj([['content', t.content], ['status', t.status], ['priority', 'medium'], ['id', String(n + 1)]])) },
  }),
  Task: as('task'),
  Skill: invertRule('skill', OPENCODE.skill!),
  AskUserQuestion: as('question'),
}

const grokShell: Out = (i) =>
  typeof i.command !== 'string'
    ? null
    : {
        name: 'run_terminal_cmd',
        input: obj([
          ['command', i.command],
          ['description', i.description],
          ['timeout', i.timeout],
          ['is_background', i.run_in_background],
        ]),
      }

const TO_CURSOR: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'Shell', input: obj([['command', i.command], ['cwd', i.workdir]]) }),
  Read: invertRule('Read', CURSOR_GROK.Read!),
  Write: invertRule('Write', CURSOR_GROK.Write!),
  Edit: invertRule('StrReplace', CURSOR_GROK.StrReplace!),
  Glob: invertRule('Glob', CURSOR_GROK.Glob!),
  WebSearch: as('WebSearch'),
  TodoWrite: (i) => ({ name: 'TodoWrite', input: { todos: todoItems(i).map((t, n) => obj([['id', String(n + 1)], ['content', t.content], ['status', t.status]])) } }),
  AskUserQuestion: as('AskQuestion'),
  NotebookEdit: as('EditNotebook'),
}

// Grok's own (non-Cursor-template) toolset: snake_case wire names.
const TO_GROK: Record<string, Out> = {
  Bash: grokShell,
  Read: as('read_file', { file_path: 'target_file' }),
  Edit: as('search_replace'),
  LS: as('list_dir'),
  Grep: as('grep'),
  WebSearch: as('web_search'),
  TodoWrite: (i) => ({ name: 'todo_write', input: { todos: todoItems(i).map((t, n) => obj([['id', String(n + 1)], ['content', t.content], ['status', t.status]])) } }),
  Task: as('task'),
}

const TARGETS: Partial<Record<string, Record<string, Out>>> = {
  'claude-code': TO_CLAUDE,
  codex: TO_CODEX,
  opencode: TO_OPENCODE,
  cursor: TO_CURSOR,
  grok: TO_GROK,
  zcode: TO_ZCODE,
}

/**
 * Canonical → the target's own call. Tools the target lacks keep their
 * canonical name (Claude Code, Codex and OpenCode all replayed foreign tool
 * names from history in our tests).
 */
function fromCanonical(target: string, name: string, input: unknown): NativeCall {
  const out = TARGETS[target]
  const f = out && Object.prototype.hasOwnProperty.call(out, name) ? out[name] : undefined
  if (!f || passthrough(name)) return { name, input }
  const r = f(isObj(input) ? input : {}, input)
  return r ?? { name, input }
}

/**
 * Any → the target harness's own name and input. `sourceHarness` is the
 * harness the block was read from (from the session key): when it equals the
 * target, the native name/input are used as they are.
 */
export function toNative(target: HarnessId, block: ToolUseBlock, sourceHarness: string): NativeCall {
  if (sourceHarness === target) {
    const name = block.native_name ?? block.name
    if (block.native_input !== undefined) return withFreeform(target, name, block.native_input)
    if (block.native_name === undefined) return withFreeform(target, block.name, block.input)
    // A pure rename: reverse the keys from the table.
    const rule = TABLES[target]?.[name]
    const input = rule?.keys && isObj(block.input) ? rename(block.input, invert(rule.keys)) : block.input
    return withFreeform(target, name, input)
  }
  const c = toCanonical(sourceHarness, block)
  return fromCanonical(target, c.name, c.input)
}

function withFreeform(target: string, name: string, input: unknown): NativeCall {
  return target === 'codex' && typeof input === 'string' && name === 'apply_patch' ? { name, input, freeform: true } : { name, input }
}

/** Canonical names this table knows (for docs and tests). */
export const CANONICAL_TOOLS = [
  'Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'ApplyPatch', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch',
  'TodoWrite', 'Task', 'Skill', 'AskUserQuestion', 'NotebookEdit', 'WriteStdin',
] as const
