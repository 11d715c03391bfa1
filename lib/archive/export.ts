/**
 * `ferry export`: the archive as Hive-style partitions of two tables,
 *
 *   DIR/sessions/harness=<h>/month=<YYYY-MM>/sessions.<ext>
 *   DIR/records/harness=<h>/month=<YYYY-MM>/part-<v>-<n>.<ext>
 *
 * in Parquet (hyparquet-writer) or gzip-compressed JSON lines, with the
 * interchange stream's field names. The partition columns live in the path
 * only, as DuckDB, Spark, BigQuery and Polars expect. Incremental: a state
 * file (`DIR/_ferry_export.json`) remembers what was written; a re-run adds
 * new record files for new or changed records and rewrites only the session
 * partitions that changed. Every file is written under a temp name and
 * renamed into place, the state last, so a killed export re-runs cleanly.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import zlib, { gzipSync } from 'node:zlib'
import { FerryError, UsageError } from '../errors.js'
import { partsColumns, partsOf, type ArchiveDb, type StoredRow } from './store/db.js'
import { nativeOf, topVersion } from './store/store.js'
import { recordField } from './store/pack.js'
import { badRow, pageOrSalvage, recordIdsAfter } from './store/damage.js'
import { sweepStaleTemps, trackTemp } from '../io/atomic.js'
import { VERSION } from '../version.js'

export type ExportFormat = 'parquet' | 'jsonl'

export interface ExportOptions {
  format: ExportFormat
  out: string
  /** Rows per record file (bounded memory). */
  rowsPerFile?: number
  /** A record that could not be read (a damaged page, text that is not JSON): reported here and left out (lib/archive/store/damage.ts). */
  onBadRow?: (err: FerryError) => void
}

export interface ExportSummary {
  format: ExportFormat
  out: string
  files: number
  sessions: number
  records: number
  bytes: number
  /** Records left out because they could not be read. */
  badRows?: number
}

interface State {
  format: ExportFormat
  records_ver: number
  sessions_ver: number
}

const STATE = '_ferry_export.json'
const MONTH = "coalesce(substr(coalesce(s.created_at, s.updated_at), 1, 7), 'unknown')"

type Col = { name: string; type: 'STRING' | 'INT32' | 'BOOLEAN' | 'TIMESTAMP' }

export const SESSION_COLUMNS: Col[] = [
  { name: 'sid', type: 'STRING' },
  { name: 'native_id', type: 'STRING' },
  { name: 'cwd', type: 'STRING' },
  { name: 'title', type: 'STRING' },
  { name: 'title_source', type: 'STRING' },
  { name: 'model', type: 'STRING' },
  { name: 'agent_version', type: 'STRING' },
  { name: 'git_branch', type: 'STRING' },
  { name: 'created_at', type: 'TIMESTAMP' },
  { name: 'updated_at', type: 'TIMESTAMP' },
  { name: 'parent', type: 'STRING' },
  { name: 'parent_kind', type: 'STRING' },
  { name: 'message_count', type: 'INT32' },
  { name: 'record_count', type: 'INT32' },
  { name: 'source_path', type: 'STRING' },
  { name: 'gone_from_source', type: 'BOOLEAN' },
  { name: 'header', type: 'STRING' },
]

export const RECORD_COLUMNS: Col[] = [
  { name: 'sid', type: 'STRING' },
  { name: 'id', type: 'STRING' },
  { name: 'seq', type: 'INT32' },
  { name: 'kind', type: 'STRING' },
  { name: 'role', type: 'STRING' },
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'parent', type: 'STRING' },
  { name: 'tools', type: 'STRING' },
  { name: 'active', type: 'BOOLEAN' },
  { name: 'record', type: 'STRING' },
  { name: 'native', type: 'STRING' },
]

type Row = Record<string, string | number | boolean | null>

/**
 * A Parquet column's value: a TIMESTAMP column takes a Date (milliseconds,
 * UTC), and a time that does not parse is null rather than a wrong instant
 * (the record's JSON keeps the text as the source wrote it).
 */
function cell(c: Col, v: Row[string] | undefined): unknown {
  if (v === undefined || v === null || c.type !== 'TIMESTAMP') return v ?? null
  const d = new Date(String(v))
  return Number.isNaN(d.getTime()) ? null : d
}

function readState(out: string, format: ExportFormat): State {
  const p = join(out, STATE)
  if (!existsSync(p)) return { format, records_ver: 0, sessions_ver: 0 }
  let s: State
  try {
    s = JSON.parse(readFileSync(p, 'utf8')) as State
  } catch (err) {
    throw new FerryError(`the export state file does not parse: ${(err as Error).message}`, { code: 'bad-meta', position: { file: p } })
  }
  if (s.format !== format) throw new UsageError(`${out} holds a ${s.format} export: export ${format} into another directory`)
  return s
}

function writeAtomic(path: string, write: (tmp: string) => void): number {
  const tmp = trackTemp(join(path, '..', `.ferry-tmp-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`))
  try {
    write(tmp)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
  return statSync(path).size
}

type ParquetWrite = (typeof import('hyparquet-writer'))['parquetWriteFile']

/**
 * The JSON documents (a record, its native pass, a header) are unique and
 * long: no dictionary is tried for them and no min/max kept, which cost a
 * fifth of an export's time.
 */
const DOCUMENTS = new Set(['record', 'native', 'header'])
const DOCUMENT_COLUMN = { encoding: 'PLAIN', statistics: false } as const
type Compress = (b: Uint8Array) => Uint8Array
const zstdSync = (zlib as unknown as { zstdCompressSync?: (b: Uint8Array) => Buffer }).zstdCompressSync
const BROTLI_FAST = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 0 } }
/**
 * Pages compressed by Node's own zstd where it has it: three times the
 * speed of the writer's JavaScript Snappy and a third smaller (its level 1
 * made the files a quarter bigger for no time saved in a whole export).
 * Node 20 has no zstd: its own Brotli at quality 0 compresses three times
 * as fast as that Snappy and a quarter smaller (docs/performance.md, "Huge line, ZCode `cat`, export").
 */
const PARQUET_CODEC: { codec: 'ZSTD' | 'BROTLI'; compressors: Record<string, Compress> } = zstdSync
  ? { codec: 'ZSTD', compressors: { ZSTD: (b) => zstdSync(b) } }
  : { codec: 'BROTLI', compressors: { BROTLI: (b) => zlib.brotliCompressSync(b, BROTLI_FAST) } }

let parquetWriteFile: ParquetWrite

function writeFile(path: string, format: ExportFormat, cols: Col[], rows: Row[], bad?: (r: Row, err: unknown) => void): number {
  mkdirSync(join(path, '..'), { recursive: true })
  if (format === 'jsonl') {
    const text = rows.flatMap((r) => jsonLine(r, bad)).join('\n') + (rows.length ? '\n' : '')
    return writeAtomic(path, (tmp) => writeFileSync(tmp, gzipSync(text)))
  }
  return writeAtomic(path, (tmp) =>
    parquetWriteFile({
      filename: tmp,
      columnData: cols.map((c) => ({ name: c.name, type: c.type, data: rows.map((r) => cell(c, r[c.name])) as never, ...(DOCUMENTS.has(c.name) ? DOCUMENT_COLUMN : {}) })),
      ...PARQUET_CODEC,
      createdBy: `ferry ${VERSION}`,
    }),
  )
}

/** A row as its JSON line, or none when its stored text does not parse (reported to `bad`). */
function jsonLine(r: Row, bad?: (r: Row, err: unknown) => void): string[] {
  try {
    return [JSON.stringify(jsonRow(r))]
  } catch (err) {
    if (!bad) throw err
    bad(r, err)
    return []
  }
}

/** In JSON lines, the nested documents are objects, not strings. */
function jsonRow(r: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r }
  for (const k of ['record', 'native', 'header']) if (typeof out[k] === 'string') out[k] = JSON.parse(out[k] as string)
  return out
}

/**
 * The interchange `native` as JSON: the stored pass with the source line put
 * back as its `raw`. The stored text is JSON.stringify's, so the line is
 * spliced in rather than the pass parsed and written again (a fifth of an
 * export's time went to that).
 */
export function nativeJson(native: string | null, raw: string | null): string | null {
  if (raw === null) return native
  if (native === null) return `{"raw":${JSON.stringify(raw)}}`
  if (native === '{}') return `{"raw":${JSON.stringify(raw)}}`
  // A pass that is not a plain object's text, or that names a raw of its own: parsed, as nativeOf reads it.
  if (native[0] !== '{' || native[native.length - 1] !== '}' || native.includes('"raw":')) return JSON.stringify(nativeOf(native, raw))
  return `${native.slice(0, -1)},"raw":${JSON.stringify(raw)}}`
}

function part(harness: string, month: string): string {
  const safe = (v: string) => encodeURIComponent(v).replace(/\./g, '%2E')
  return join(`harness=${safe(harness)}`, `month=${safe(month)}`)
}

/**
 * Bytes of records per file, and buffered across partitions. The Parquet
 * writer builds a whole file in memory (strings re-encoded, its buffer
 * doubling as it grows), several times these bytes at its peak: 16/40 MiB
 * made an export of 10,000 sessions peak at 628 MiB RSS.
 */
const FILE_BYTES = 4 * 1024 * 1024
const BUFFERED_BYTES = 12 * 1024 * 1024

export async function exportArchive(db: ArchiveDb, opts: ExportOptions): Promise<ExportSummary> {
  // Loaded on first use: the writer is only needed here.
  if (opts.format === 'parquet') parquetWriteFile ??= (await import('hyparquet-writer')).parquetWriteFile
  const ext = opts.format === 'parquet' ? 'parquet' : 'jsonl.gz'
  mkdirSync(opts.out, { recursive: true })
  sweepStaleTemps(opts.out)
  const state = readState(opts.out, opts.format)
  const sum: ExportSummary = { format: opts.format, out: opts.out, files: 0, sessions: 0, records: 0, bytes: 0 }
  const top = topVersion(db)
  const rowsPerFile = opts.rowsPerFile ?? 20_000

  const onBad = (e: FerryError) => {
    sum.badRows = (sum.badRows ?? 0) + 1
    if (!opts.onBadRow) throw e
    opts.onBadRow(e)
  }
  // A session row whose header is not the JSON ferry wrote costs that row, located, as a record's does.
  const badSession = (r: Row, err: unknown) => {
    sum.sessions--
    onBad(badRow(db, `sessions:${String(r.sid)}`, err))
  }

  // Sessions: rewrite each partition that has a changed session.
  const parts = db.prepare(`SELECT DISTINCT s.harness AS h, ${MONTH} AS m FROM sessions s WHERE s.ver > ?`).all(state.sessions_ver) as { h: string; m: string }[]
  const inPart = db.prepare(`SELECT s.*, ${MONTH} AS m FROM sessions s WHERE s.harness = ? AND ${MONTH} = ? ORDER BY s.sid`)
  for (const p of parts) {
    const rows = (inPart.all(p.h, p.m) as Array<Record<string, unknown>>).map((s): Row => ({
      sid: s.sid as string,
      native_id: s.native_id as string,
      cwd: (s.cwd as string) ?? null,
      title: (s.title as string) ?? null,
      title_source: (s.title_source as string) ?? null,
      model: (s.model as string) ?? null,
      agent_version: (s.agent_version as string) ?? null,
      git_branch: (s.git_branch as string) ?? null,
      created_at: (s.created_at as string) ?? null,
      updated_at: (s.updated_at as string) ?? null,
      parent: (s.parent as string) ?? null,
      parent_kind: (s.parent_kind as string) ?? null,
      message_count: s.message_count as number,
      record_count: s.record_count as number,
      source_path: (s.src_path as string) ?? null,
      gone_from_source: s.gone_at !== null && s.gone_at !== undefined,
      header: s.header as string,
    }))
    sum.bytes += writeFile(join(opts.out, 'sessions', part(p.h, p.m), `sessions.${ext}`), opts.format, SESSION_COLUMNS, rows, badSession)
    sum.files++
    sum.sessions += rows.length
  }

  // Records: new files for records new or changed since the last export, paged by rowid.
  const page = db.prepare(`SELECT r.rid, r.sid, r.id, r.ord, r.kind, r.role, r.ts, r.tools, r.active, ${partsColumns(db, 'r')}, coalesce(s.harness, substr(r.sid, 1, instr(r.sid, ':') - 1)) AS h, ${MONTH} AS m, s.sid IS NULL AS orphan
    FROM records r LEFT JOIN sessions s ON s.sid = r.sid WHERE r.ver > ? AND r.ver <= ? AND r.rid > ? ORDER BY r.rid LIMIT 2000`)
  const one = db.prepare(`SELECT r.rid, r.sid, r.id, r.ord, r.kind, r.role, r.ts, r.tools, r.active, ${partsColumns(db, 'r')}, coalesce(s.harness, substr(r.sid, 1, instr(r.sid, ':') - 1)) AS h, ${MONTH} AS m, s.sid IS NULL AS orphan
    FROM records r LEFT JOIN sessions s ON s.sid = r.sid WHERE r.ver > ? AND r.ver <= ? AND r.rid = ?`)
  const badLine = (r: Row, err: unknown) => {
    sum.records--
    onBad(badRow(db, `records:${String(r.id)}`, err))
  }
  const orphans = new Set<string>()
  const buffers = new Map<string, { h: string; m: string; rows: Row[]; bytes: number }>()
  let n = 0
  let buffered = 0
  const flush = (key: string) => {
    const b = buffers.get(key)!
    buffers.delete(key)
    buffered -= b.bytes
    sum.bytes += writeFile(join(opts.out, 'records', part(b.h, b.m), `part-${top}-${String(n++).padStart(5, '0')}.${ext}`), opts.format, RECORD_COLUMNS, b.rows, badLine)
    sum.files++
  }
  let after = 0
  for (;;) {
    let salvaged: number[] | undefined
    type R = { rid: number; sid: string; id: string; ord: number; kind: string; role: string | null; ts: string | null; tools: string | null; active: number; h: string; m: string; orphan: number } & StoredRow
    const rows = pageOrSalvage(
      db,
      () => page.all(state.records_ver, top, after) as R[],
      () => (salvaged = recordIdsAfter(db, after, 2000)),
      (rid) => one.get(state.records_ver, top, rid) as R | undefined,
      onBad,
    )
    for (const r of rows) {
      // A record whose session row is gone or damaged (its sid no longer matches) is still exported, and said once.
      if (r.orphan && !orphans.has(r.sid)) {
        orphans.add(r.sid)
        onBad(new FerryError(`the session row of ${r.sid} is missing or damaged; its records are exported without it`, { code: 'bad-row', position: { file: db.name, row: `sessions:${r.sid}` } }))
      }
      const key = `${r.h}\u0000${r.m}`
      let b = buffers.get(key)
      if (!b) buffers.set(key, (b = { h: r.h, m: r.m, rows: [], bytes: 0 }))
      // The interchange field `native` whole: its stored JSON with the source line put back.
      let native: string | null
      let parent: unknown
      let body: string
      try {
        const p = partsOf(r, db)
        body = p.body
        parent = r.kind === 'message' ? recordField(p, 'parent') : null
        native = nativeJson(p.native, p.raw)
      } catch (err) {
        onBad(badRow(db, `records:${r.id}`, err))
        continue
      }
      b.rows.push({ sid: r.sid, id: r.id, seq: r.ord, kind: r.kind, role: r.role, ts: r.ts, parent: typeof parent === 'string' ? parent : null, tools: r.tools, active: r.active === 1, record: body, native })
      const size = body.length + (native?.length ?? 0) + 200
      b.bytes += size
      buffered += size
      sum.records++
      if (b.rows.length >= rowsPerFile || b.bytes >= FILE_BYTES) flush(key)
      else if (buffered >= BUFFERED_BYTES) {
        const biggest = [...buffers].sort((a, c) => c[1].bytes - a[1].bytes)[0]![0]
        flush(biggest)
      }
    }
    if (salvaged) {
      if (salvaged.length < 2000) break
      after = salvaged[salvaged.length - 1]!
      continue
    }
    if (rows.length < 2000) break
    after = rows[rows.length - 1]!.rid
  }
  for (const key of [...buffers.keys()]) flush(key)
  writeFileSync(join(opts.out, STATE), JSON.stringify({ format: opts.format, records_ver: top, sessions_ver: top } satisfies State) + '\n')
  return sum
}
