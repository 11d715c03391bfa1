/**
 * `ferry search QUERY`: full-text search over the archive (SQLite FTS5,
 * BM25-ranked). The query is plain words, each taken as it is written
 * (`probe.txt`, `--force`, `src/a.ts`; all must match); with --fts it is
 * FTS5 syntax: "a phrase", OR, NOT, prefix*, column filters (title:,
 * tools:, cwd:). Each hit names the `ferry show REF#N` that opens it; no
 * hit is exit 1, as grep and rg.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { FerryError, UsageError } from '../../errors.js'
import { ftsQuery } from '../../query/fts.js'
import { shellQuote } from '../../vocabulary/shell.js'
import { openArchive } from '../../archive/store/db.js'
import { MARK_CLOSE, MARK_OPEN, search, SearchSyntaxError, type SearchHit } from '../../archive/search.js'
import { contextFrom, type Args } from '../options.js'
import { archiveHarness } from '../archive-options.js'
import { namedEntries, sinceOption } from '../selection.js'

export const command = 'search [query..]'
export const describe = 'Full-text search over the archive (plain words, or FTS5 syntax with --fts; --db FILE)'

export function builder(y: Argv): Argv {
  return y
    .positional('query', { type: 'string', array: true, describe: 'Words, each as written (all must match); with --fts: "a phrase", OR, NOT, prefix*, title:word' })
    .option('fts', { type: 'boolean', default: false, describe: 'Take the query as FTS5 syntax (OR, NOT, "phrase", prefix*, title:/tools:/cwd:) instead of plain words' })
    .option('harness', { type: 'string', array: true, describe: 'Only sessions of these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions of this directory or below' })
    .option('since', { type: 'string', describe: 'Only hits since a date (ISO) or a span (7d, 12h)' })
    .option('role', { type: 'string', choices: ['user', 'assistant', 'system'], describe: 'Only messages of this role' })
    .option('tool', { type: 'string', describe: 'Only tool calls (and their results) of this tool, e.g. Bash' })
    .option('limit', { type: 'number', default: 20, describe: 'At most this many hits' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per hit, per line' })
    .example('ferry search connection refused', 'both words, anywhere')
    .example('ferry search -- src/a.ts --force', 'words with punctuation, as written (after --: a word may start with -)')
    .example('ferry search migration --tool Bash --since 30d', 'tool calls and outputs of the last month')
    .example('ferry search --fts \'title:deploy OR cwd:infra\' --json', 'FTS5 syntax: in titles or working directories, as JSON lines')
}

/** Marks → ANSI bold on a TTY, nothing elsewhere. */
function render(snippet: string, color: boolean): string {
  const flat = snippet.replace(/\s+/g, ' ').trim()
  return color ? flat.replaceAll(MARK_OPEN, '\x1b[1;33m').replaceAll(MARK_CLOSE, '\x1b[0m') : flat.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, '')
}

/** The snippet without marks, and where the matches are in it ([start, end) in UTF-16 units). */
function highlights(snippet: string): { text: string; highlights: Array<[number, number]> } {
  let text = ''
  const hs: Array<[number, number]> = []
  let start = -1
  for (const ch of snippet) {
    if (ch === MARK_OPEN) start = text.length
    else if (ch === MARK_CLOSE) {
      if (start >= 0) hs.push([start, text.length])
      start = -1
    } else text += ch
  }
  return { text, highlights: hs }
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  // Words after `--` (a word that starts with a dash: `ferry search -- --force`) come in `_`, after the command's name.
  const words = [...(Array.isArray(argv.query) ? argv.query : argv.query === undefined ? [] : [argv.query]), ...(Array.isArray(argv._) ? argv._.slice(1) : [])]
  const text = words.map(String).join(' ')
  const query = ftsQuery(text, { fts: argv.fts === true })
  const limit = Number(argv.limit)
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`--limit: not a positive whole number: ${String(argv.limit)}`)
  const harnesses = namedEntries(argv.harness).map((h) => h.id)
  const since = sinceOption(argv)
  const path = archiveHarness().root(ctx)
  if (!existsSync(path)) throw new FerryError('no archive here (run `ferry archive` first, or give --db FILE)', { code: 'db-error', position: { file: path } })
  const db = openArchive(path, { readonly: true })
  let hits: SearchHit[]
  try {
    hits = search(db, query, {
      ...(harnesses.length ? { harnesses } : {}),
      ...(typeof argv.cwd === 'string' ? { cwd: resolve(argv.cwd) } : {}),
      ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
      ...(typeof argv.role === 'string' ? { role: argv.role } : {}),
      ...(typeof argv.tool === 'string' ? { tool: argv.tool } : {}),
      limit,
    })
  } catch (err) {
    // SQLite's own words ("fts5: syntax error near …") say less than this.
    if (err instanceof SearchSyntaxError) throw new UsageError(`search: not a valid FTS5 query: ${JSON.stringify(text.trim().slice(0, 80))} (without --fts the words are searched as written)`)
    throw err
  } finally {
    db.close()
  }
  if (hits.length === 0) {
    // As grep and rg: nothing found is exit 1 with nothing on stdout, so `ferry search x && …` reads right.
    process.stderr.write(`ferry: no matches in ${path}\n`)
    process.exitCode = 1
    return
  }
  const dbFlag = typeof argv.db === 'string' ? ` --db ${shellQuote(resolve(argv.db))}` : ''
  const home = typeof argv.home === 'string' ? ` --home ${shellQuote(resolve(argv.home))}` : ''
  const show = (h: SearchHit) => `ferry show ${shellQuote(h.ref)} --archive${home}${dbFlag}`
  if (argv.json) {
    for (const h of hits) {
      const { text, highlights: hl } = highlights(h.snippet)
      process.stdout.write(JSON.stringify({ ...h, snippet: text, highlights: hl, show: show(h) }) + '\n')
    }
    return
  }
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR
  const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[0m` : s)
  const out: string[] = []
  for (const h of hits) {
    const when = h.time ? h.time.slice(0, 16).replace('T', ' ') : '-'
    out.push(`${h.sid}  ${when}  ${(h.title ?? '').replace(/\s+/g, ' ').slice(0, 80)}${h.gone_from_source ? '  [gone from source]' : ''}`)
    out.push(dim(`  ${h.record_id}${h.role ? ` (${h.role})` : h.kind !== 'message' ? ` (${h.kind})` : ''}${h.tools ? ` [${h.tools}]` : ''}`))
    out.push(`  ${render(h.snippet, color)}`)
    out.push(dim(`  ${show(h)}`))
  }
  process.stdout.write(out.join('\n') + '\n')
}
