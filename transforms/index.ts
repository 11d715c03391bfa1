/**
 * The transforms, as library calls and as a self-describing registry the
 * CLI turns into filter commands (`ferry redact`) and flags of cat/convert
 * (`--redact`, `--truncate '--tool-output 4000'`).
 */
import type { Transform } from 'node:stream'
import { Redactor, redactText } from '../lib/redact/engine.js'
import { filter, type FilterCount } from './filter.js'
import { normalizeTools } from './normalize-tools.js'
import { redact, type RedactFinding } from './redact.js'
import { truncate } from './truncate.js'
import { list } from './util.js'

import type { Flag } from '../lib/harness/types.js'
type CliFlag = Flag & { name: string }

export { filter, type FilterOptions, type FilterCount } from './filter.js'
export { truncate, type TruncateOptions } from './truncate.js'
export { normalizeTools, type NormalizeToolsOptions } from './normalize-tools.js'
export { redact, type RedactTransformOptions, type RedactFinding } from './redact.js'
export { Redactor, redactText, type RedactOptions } from '../lib/redact/engine.js'

/** A transform's CLI option: the same shape as a harness flag. */
export type TransformOption = CliFlag

export interface TransformEntry {
  name: string
  describe: string
  options: TransformOption[]
  examples?: Array<[string, string]>
  create(argv: Record<string, unknown>): Transform
  /** Handles the whole command when it returns true (`redact --text`, `filter --count`). */
  command?(argv: Record<string, unknown>, ctx?: unknown): Promise<boolean>
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)
const get = (argv: Record<string, unknown>, name: string): unknown => argv[name] ?? argv[name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())]

function redactOptions(argv: Record<string, unknown>) {
  return {
    paths: get(argv, 'paths') === true,
    emails: get(argv, 'emails') === true,
    rulesFile: str(get(argv, 'rules')),
    allow: list(get(argv, 'allow')),
  }
}

function printFindings(findings: RedactFinding[], total: Record<string, number>, json: boolean): void {
  if (json) {
    process.stderr.write(JSON.stringify({ redacted: total, records: findings }) + '\n')
    return
  }
  for (const f of findings) process.stderr.write(`redact: ${f.id}: ${Object.entries(f.kinds).map(([k, n]) => `${k}×${n}`).join(', ')}\n`)
  const kinds = Object.entries(total)
  process.stderr.write(kinds.length ? `redact: ${kinds.map(([k, n]) => `${k}×${n}`).join(', ')}\n` : 'redact: nothing found\n')
}

export const registry: TransformEntry[] = [
  {
    name: 'filter',
    describe: 'Select sessions and the records within them (tool pairs stay paired)',
    options: [
      { name: 'harness', type: 'string', describe: 'Only these harnesses (comma list)' },
      { name: 'cwd', type: 'string', describe: 'Glob on the session cwd (* within a segment, ** across)' },
      { name: 'since', type: 'string', describe: 'Sessions created at or after this ISO date' },
      { name: 'until', type: 'string', describe: 'Sessions created at or before this ISO date' },
      { name: 'title', type: 'string', describe: 'Regex on the title (case-insensitive)' },
      { name: 'grep', type: 'string', describe: 'Regex on message text (holds one session in memory)' },
      { name: 'subagents', type: 'boolean', describe: 'Keep sub-agent sessions (--no-subagents drops them)', default: true },
      { name: 'min-messages', type: 'number', describe: 'At least this many messages' },
      { name: 'max-messages', type: 'number', describe: 'At most this many messages' },
      { name: 'invert', type: 'boolean', describe: 'Keep the sessions that do NOT match' },
      { name: 'roles', type: 'string', describe: 'Keep messages of these roles (user,assistant,system)' },
      { name: 'context', type: 'boolean', describe: 'Keep injected context (--no-context drops it)', default: true },
      { name: 'blocks', type: 'string', describe: 'Keep these block kinds: text,thinking,tool,image,file,unknown' },
      { name: 'tools', type: 'string', describe: 'Keep only these tool calls (and their results)' },
      { name: 'range', type: 'string', describe: 'Messages #A-B (1-based); refuses to cut a tool pair' },
      { name: 'count', type: 'boolean', describe: 'Print what would pass (sessions, messages, records) instead of the stream' },
    ],
    examples: [['ferry cat codex:ID | ferry filter --no-context --blocks text,tool', 'drop injected context, thinking and images']],
    create(argv) {
      return filter({
        harness: list(get(argv, 'harness')),
        cwd: str(get(argv, 'cwd')),
        since: str(get(argv, 'since')),
        until: str(get(argv, 'until')),
        title: str(get(argv, 'title')),
        grep: str(get(argv, 'grep')),
        subagents: get(argv, 'subagents') !== false,
        minMessages: num(get(argv, 'min-messages')),
        maxMessages: num(get(argv, 'max-messages')),
        invert: get(argv, 'invert') === true,
        roles: list(get(argv, 'roles')),
        context: get(argv, 'context') !== false,
        blocks: list(get(argv, 'blocks')),
        tools: list(get(argv, 'tools')),
        range: str(get(argv, 'range')),
        onCount: get(argv, 'count') === true ? (c: FilterCount) => process.stdout.write(`sessions ${c.sessions}\nmessages ${c.messages}\nrecords ${c.records}\n`) : undefined,
      })
    },
    async command(argv, ctx) {
      if (get(argv, 'count') !== true) return false
      // Counting: run the filter and discard its output.
      const { openSources } = (await import(new URL('../lib/cli/sources.js', import.meta.url).href)) as {
        openSources: (ctx: unknown, argv: unknown, o: { native: boolean }) => Promise<{ source: NodeJS.ReadableStream }>
      }
      const { Writable } = await import('node:stream')
      const { pipeline } = await import('node:stream/promises')
      const { source } = await openSources(ctx, argv, { native: false })
      await pipeline(source, this.create(argv), new Writable({ objectMode: true, write: (_r, _e, cb) => cb() }))
      return true
    },
  },
  {
    name: 'truncate',
    describe: 'Cap text by block kind (UTF-8 safe, visible cut); strip or extract images',
    options: [
      { name: 'tool-input', type: 'number', describe: 'Cap each string of a tool call input' },
      { name: 'tool-output', type: 'number', describe: 'Cap tool result text' },
      { name: 'thinking', type: 'number', describe: 'Cap thinking text' },
      { name: 'text', type: 'number', describe: 'Cap each text block' },
      { name: 'message', type: 'number', describe: 'Cap all text of one message' },
      { name: 'bytes', type: 'boolean', describe: 'Caps are UTF-8 bytes (default: characters)' },
      { name: 'keep-tail', type: 'number', describe: 'Also keep this much of the end', default: 0 },
      { name: 'preset', type: 'string', describe: '"origin": tool input 2000, tool output 4000 characters' },
      { name: 'images', type: 'string', describe: 'keep | strip | extract (with --images-dir)', default: 'keep' },
      { name: 'images-dir', type: 'string', describe: 'Where --images extract writes image files' },
    ],
    examples: [['ferry cat codex:ID | ferry truncate --tool-output 4000 --images strip', 'shorten outputs, drop image bytes']],
    create(argv) {
      const images = str(get(argv, 'images')) ?? 'keep'
      if (!['keep', 'strip', 'extract'].includes(images)) throw new Error(`truncate: --images must be keep, strip or extract`)
      const preset = str(get(argv, 'preset'))
      if (preset !== undefined && preset !== 'origin') throw new Error(`truncate: unknown preset "${preset}" (known: origin)`)
      return truncate({
        toolInput: num(get(argv, 'tool-input')),
        toolOutput: num(get(argv, 'tool-output')),
        thinking: num(get(argv, 'thinking')),
        text: num(get(argv, 'text')),
        message: num(get(argv, 'message')),
        unit: get(argv, 'bytes') === true ? 'bytes' : 'chars',
        keepTail: num(get(argv, 'keep-tail')) ?? 0,
        preset: preset as 'origin' | undefined,
        images: images as 'keep' | 'strip' | 'extract',
        imagesDir: str(get(argv, 'images-dir')),
      })
    },
  },
  {
    name: 'normalize-tools',
    describe: 'Map tool calls to canonical names and arguments (Claude Code vocabulary), or to one harness with --style',
    options: [{ name: 'style', type: 'string', describe: 'Map to this harness vocabulary instead (codex, opencode, cursor, grok, …)' }],
    create(argv) {
      return normalizeTools({ style: str(get(argv, 'style')) })
    },
  },
  {
    name: 'redact',
    describe: 'Remove secrets (and optionally home paths, user names, e-mails) everywhere in a session',
    options: [
      { name: 'text', type: 'boolean', describe: 'Redact plain text from stdin instead of a record stream' },
      { name: 'paths', type: 'boolean', describe: 'Home directories → ~, user name → user' },
      { name: 'emails', type: 'boolean', describe: 'Redact e-mail addresses' },
      { name: 'rules', type: 'string', describe: 'File of extra rules, one "kind regex" per line' },
      { name: 'allow', type: 'string', describe: 'Values never redacted (comma list)' },
      { name: 'report', type: 'boolean', describe: 'Print what kinds were found where to stderr (never the secret)' },
      { name: 'report-json', type: 'boolean', describe: 'Print the report as one JSON line on stderr' },
      { name: 'check', type: 'boolean', describe: 'Write nothing; exit 1 if anything would be redacted' },
    ],
    examples: [
      ['ferry cat codex:ID | ferry redact | ferry write --to claude-code', 'share a session without its secrets'],
      ['ferry redact --text < error.log', 'redact any text'],
      ['ferry cat claude-code:ID | ferry redact --check', 'pre-share hook: exit 1 when something would be redacted'],
    ],
    create(argv) {
      const report = get(argv, 'report') === true || get(argv, 'report-json') === true
      const check = get(argv, 'check') === true
      const findings: RedactFinding[] = []
      const engine = new Redactor(redactOptions(argv))
      const t = redact({
        redactor: engine,
        check,
        onFind: report || check ? (f) => (findings.length < 100_000 ? findings.push(f) : 0) : undefined,
      })
      if (report || check) {
        t.on('end', () => {
          const total = engine.report()
          if (report || check) printFindings(report ? findings : [], total, get(argv, 'report-json') === true)
          if (check && Object.keys(total).length > 0) process.exitCode = 1
        })
      }
      return t
    },
    async command(argv) {
      if (get(argv, 'text') !== true) return false
      const chunks: Buffer[] = []
      for await (const c of process.stdin) chunks.push(c as Buffer)
      // latin1 maps every byte to one character and back: bytes outside secrets stay exactly as they were, even invalid UTF-8.
      const input = Buffer.concat(chunks).toString('latin1')
      const { text, found } = redactText(input, redactOptions(argv))
      const check = get(argv, 'check') === true
      if (!check) process.stdout.write(Buffer.from(text, 'latin1'))
      if (get(argv, 'report') === true || get(argv, 'report-json') === true || check) printFindings([], found, get(argv, 'report-json') === true)
      if (check && Object.keys(found).length > 0) process.exitCode = 1
      return true
    },
  },
]

