/**
 * Writing records into the archive and reading them back. The writer is
 * shared by `ferry archive` (lib/archive/sync.ts) and the archive harness's sink
 * (`convert --to archive`); ids are the stable record ids, so writing the
 * same session twice adds nothing, and a record whose content changed in
 * its source (an OpenCode part that finished) is updated in place.
 */
import { Readable } from 'node:stream'
import type { EndRec, FerryRecord, NativePass, SessionRec } from '../../model.js'
import { FerryError } from '../../errors.js'
import type { ArchiveDb } from './db.js'
import { blockOf, forgetBlock, lastBlockId, lockError, partsColumns, partsOf, type StoredRow } from './db.js'
import { indexedText } from './text.js'
import { BLOCK_BYTES, BlockBuilder, CODEC_NONE, packParts, plainOf, samePlain, unpackPlain } from './pack.js'
import { readableOf } from '../../io/drain.js'
import { badRow, pageOrThrow } from './damage.js'

/**
 * Row text: a string, or its UTF-8 bytes (how reader threads hand rows to
 * the writer: bound as they are, the writer never makes strings of them).
 */
export type RowText = string | Uint8Array

/** A record as the archive stores and indexes it: everything a writer needs, and plain data (it crosses threads). */
export interface Row {
  id: unknown
  sid: unknown
  kind: string
  role: string | null
  ts: string | null
  /** Tool names used or answered, space-separated ('' for none). */
  tools: string
  /**
   * The record's stored parts, packed (pack.ts) but not compressed: made where the row is made, a
   * reader thread as a rule, which also compresses a session's rows together by blocks (seal.ts).
   */
  data: Uint8Array
  /** Its index in the block its reader sealed (none: the writer puts it into a block of its own). */
  bidx?: number
  /** Whether it was read with its native pass (a native-less stream keeps what was stored of the source). */
  hasNative: boolean
  /** The indexed words ('' for none). */
  text: RowText
}

/** Row text as a string (the rare paths that compare or keep it). */
function asString<T extends RowText | null>(v: T): string | Exclude<T, RowText> {
  return (typeof v === 'string' || v === null ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8')) as string | Exclude<T, RowText>
}

/**
 * Prepares the rows of one session's records, in order: the stored parts,
 * the indexed text, and the tool names a result answers (known from the
 * session's earlier tool calls). Needs no database, so it can run in a
 * reader thread while another thread writes.
 */
export class RowMaker {
  private readonly toolNames = new Map<string, string>()

  /** A new session begins. */
  reset(): void {
    this.toolNames.clear()
  }

  row(rec: FerryRecord): Row {
    const { body, native, raw } = storedParts(rec)
    const data = packParts(body, native, raw, CODEC_NONE)
    const { text, tools: names } = indexedText(rec)
    let tools = names
    if (rec.kind === 'message') {
      for (const b of rec.blocks) {
        if (b.type === 'tool_use') this.toolNames.set(b.id, b.name)
        else if (b.type === 'tool_result') {
          const n = this.toolNames.get(b.tool_use_id)
          if (n && !(' ' + tools + ' ').includes(' ' + n + ' ')) tools = tools ? `${tools} ${n}` : n
        }
      }
    }
    return {
      id: (rec as { id?: unknown }).id,
      sid: (rec as { sid?: unknown }).sid,
      kind: rec.kind,
      role: rec.kind === 'message' ? rec.role : null,
      ts: 'ts' in rec ? ((rec as { ts?: string | null }).ts ?? null) : null,
      tools,
      data,
      hasNative: native !== null,
      text,
    }
  }
}

/** Where a session came from, as found by discovery (all optional). */
export interface Provenance {
  path?: string
  size?: number
  mtimeMs?: number
  ino?: number
  head?: string
  fingerprint?: string
  /** What discovery said about the session (kept for `ls --archive`). */
  info?: Record<string, unknown>
}

export interface SessionCounts {
  added: number
  changed: number
  same: number
}

const now = () => new Date().toISOString()

/**
 * A record as stored: `body` is the record without `native`, `native` its
 * native pass without the source line, and `raw` that line as it came (not
 * escaped into JSON, so it is written once and read back byte for byte).
 * The record is stringified once, in place (no copy of it).
 */
export function storedParts(rec: FerryRecord): { body: string; native: string | null; raw: string | null } {
  const n = (rec as { native?: NativePass }).native
  if (n === undefined) return { body: JSON.stringify(rec), native: null, raw: null }
  const r = rec as { native?: NativePass }
  r.native = undefined
  let body: string
  try {
    body = JSON.stringify(rec)
  } finally {
    r.native = n
  }
  if (typeof n.raw !== 'string') return { body, native: JSON.stringify(n), raw: null }
  const raw = n.raw
  n.raw = undefined
  try {
    return { body, native: JSON.stringify(n), raw }
  } finally {
    n.raw = raw
  }
}

/** The native pass back from its stored parts. */
export function nativeOf(native: string | null, raw: string | null): NativePass | undefined {
  if (native === null) return raw === null ? undefined : ({ raw } as NativePass)
  const n = JSON.parse(native) as NativePass
  if (raw !== null) n.raw = raw
  return n
}

/**
 * One writer per run. Call begin() before writing and commit() at batch
 * ends; everything between is one transaction (WAL), so a kill at any
 * moment loses at most the open batch and a re-run redoes it.
 */
export class ArchiveWriter {
  /** This run's generation: records read now are marked seen with it. */
  readonly gen: number
  private ver: number
  private inTx = false
  private sid: string | null = null
  private ord = 0
  private counts: SessionCounts = { added: 0, changed: 0, same: 0 }
  private readonly rows = new RowMaker()
  /** The open session had no row before: its counts are this run's, and nothing can have left its active branch. */
  private fresh = false
  private messages = 0
  /** Records written since the last commit. */
  pending = 0
  private ftsPending: Array<{ rowid: number; replace: boolean; cols: [string, string, string, string] | null }> = []
  /** The open session's block being filled (rows already point at it; written at `sealBlock`, always before a commit). */
  private block: BlockBuilder | null = null
  private bid = 0
  /** The last block number given (taken under the write lock at each begin). */
  private lastBid = 0
  /** Blocks of the open session that a rewritten record left: deleted at its end if no record points at them any more. */
  private left = new Set<number>()
  /** Whether the open session's last block was looked at (to be filled further: see `addRow`). */
  private tailSeen = false
  /**
   * The block being filled holds the same rows at the same indexes as the one a reader thread is sealing: the sealed BLOB
   * is stored when it comes (`takeBlock`) and the writer compresses nothing. Any other row (one not added, added elsewhere,
   * or its content changed) ends that, and the writer seals its own.
   */
  private aligned = false
  private readonly st

  constructor(private readonly db: ArchiveDb, private readonly path: string, private readonly waitMs = 30_000) {
    const g = db.prepare("SELECT value FROM meta WHERE key = 'gen'").get() as { value: string } | undefined
    this.gen = Number(g?.value ?? 0) + 1
    db.prepare("INSERT INTO meta(key, value) VALUES ('gen', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER)").run(String(this.gen))
    this.ver = 0
    this.st = {
      session: db.prepare('SELECT rowid AS r, sid, fingerprint, gone_at, first_archived_at FROM sessions WHERE sid = ?'),
      upsertSession: db.prepare(`INSERT INTO sessions (sid, harness, native_id, cwd, title, title_source, model, agent_version, git_branch, created_at, updated_at, parent, parent_kind, header, info, src_path, src_size, src_mtime_ms, src_ino, src_head, first_archived_at, synced_at, gone_at, ver)
        VALUES (@sid, @harness, @native_id, @cwd, @title, @title_source, @model, @agent_version, @git_branch, @created_at, @updated_at, @parent, @parent_kind, @header, @info, @src_path, @src_size, @src_mtime_ms, @src_ino, @src_head, @now, @now, NULL, @ver)
        ON CONFLICT(sid) DO UPDATE SET harness = excluded.harness, native_id = excluded.native_id, cwd = coalesce(excluded.cwd, cwd), title = coalesce(excluded.title, title),
          title_source = coalesce(excluded.title_source, title_source), model = coalesce(excluded.model, model), agent_version = coalesce(excluded.agent_version, agent_version),
          git_branch = coalesce(excluded.git_branch, git_branch), created_at = coalesce(created_at, excluded.created_at), updated_at = coalesce(excluded.updated_at, updated_at),
          parent = coalesce(excluded.parent, parent), parent_kind = coalesce(excluded.parent_kind, parent_kind), header = excluded.header, info = coalesce(excluded.info, info),
          src_path = coalesce(excluded.src_path, src_path), src_size = coalesce(excluded.src_size, src_size), src_mtime_ms = coalesce(excluded.src_mtime_ms, src_mtime_ms),
          src_ino = coalesce(excluded.src_ino, src_ino), src_head = coalesce(excluded.src_head, src_head), synced_at = excluded.synced_at, gone_at = NULL, ver = excluded.ver`),
      finishSession: db.prepare(`UPDATE sessions SET end_rec = coalesce(@end_rec, end_rec), title = coalesce(@title, title), updated_at = coalesce(@updated_at, updated_at), model = coalesce(@model, model),
          message_count = (SELECT count(*) FROM records WHERE sid = @sid AND kind = 'message'), record_count = (SELECT count(*) FROM records WHERE sid = @sid),
          fingerprint = @fingerprint, ver = @ver WHERE sid = @sid`),
      finishFresh: db.prepare(`UPDATE sessions SET end_rec = coalesce(@end_rec, end_rec), title = coalesce(@title, title), updated_at = coalesce(@updated_at, updated_at), model = coalesce(@model, model),
          message_count = @messages, record_count = @records, fingerprint = @fingerprint, ver = @ver WHERE sid = @sid`),
      inactive: db.prepare('UPDATE records SET active = 0, ver = ? WHERE sid = ? AND seen < ? AND active = 1'),
      link: db.prepare('INSERT INTO links(child, parent, kind, tool_use_id, agent_id, at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(child) DO UPDATE SET parent = excluded.parent, kind = excluded.kind, tool_use_id = excluded.tool_use_id, agent_id = excluded.agent_id, at = excluded.at'),
      ftsDel: db.prepare('DELETE FROM fts WHERE rowid = ?'),
      // CAST: row text may come as UTF-8 bytes (see RowText); it is stored and indexed as text all the same.
      ftsIns: db.prepare('INSERT INTO fts(rowid, text, tools, title, cwd) VALUES (?, CAST(? AS TEXT), ?, ?, ?)'),
      get: db.prepare('SELECT rid, sid, bid, bidx, active, ord FROM records WHERE id = ?'),
      insert: db.prepare('INSERT INTO records(id, sid, ord, kind, role, ts, tools, active, seen, ver, bid, bidx) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING'),
      update: db.prepare('UPDATE records SET ord = ?, kind = ?, role = ?, ts = ?, tools = ?, active = 1, seen = ?, ver = ?, bid = ?, bidx = ? WHERE rid = ?'),
      insertBlock: db.prepare('INSERT INTO blocks(bid, data) VALUES (?, ?)'),
      blocksOf: db.prepare('SELECT DISTINCT bid FROM records WHERE sid = ?').pluck(),
      dropBlock: db.prepare('DELETE FROM blocks WHERE bid = ?'),
      lastBlock: db.prepare('SELECT max(bid) FROM records WHERE sid = ? AND bid <> ?').pluck(),
      moveBlock: db.prepare('UPDATE records SET bid = ? WHERE sid = ? AND bid = ?'),
      moveRow: db.prepare('UPDATE records SET bidx = ? WHERE rid = ?'),
      touch: db.prepare('UPDATE records SET ord = ?, seen = ?, active = 1 WHERE rid = ?'),
      touchActive: db.prepare('UPDATE records SET ord = ?, seen = ?, active = 1, ver = ? WHERE rid = ?'),
    }
  }

  private exec(sql: string): void {
    try {
      this.db.exec(sql)
    } catch (err) {
      throw lockError(this.path, err, this.waitMs) ?? err
    }
  }

  begin(): void {
    if (this.inTx) return
    this.exec('BEGIN IMMEDIATE')
    this.inTx = true
    this.lastBid = lastBlockId(this.db)
    // Taken under the write lock, so two runs never share a version (export relies on versions only growing).
    if (this.ver === 0) {
      this.ver = topVersion(this.db) + 1
      this.db.prepare("INSERT INTO meta(key, value) VALUES ('ver', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(this.ver))
    }
  }

  /**
   * Index rows whose rowid is below the last one written (a session's title
   * row, a record rewritten in place) wait for the end of the batch and go
   * in rowid order: FTS5 flushes its in-memory terms to a new segment
   * whenever a rowid goes down, which per session made thousands of tiny
   * segments (and their merges) on a first archive.
   */
  private ftsLater(rowid: number, replace: boolean, cols: [string, string, string, string] | null): void {
    if (!replace && cols === null) return
    this.ftsPending.push({ rowid, replace, cols })
  }

  private flushFts(): void {
    if (this.ftsPending.length === 0) return
    const ops = this.ftsPending.sort((a, b) => a.rowid - b.rowid)
    this.ftsPending = []
    for (const o of ops) {
      if (o.replace) this.st.ftsDel.run(o.rowid)
      if (o.cols) this.st.ftsIns.run(o.rowid, ...o.cols)
    }
  }

  commit(): void {
    if (!this.inTx) return
    this.sealBlock()
    this.flushFts()
    this.exec('COMMIT')
    this.inTx = false
    this.pending = 0
  }

  rollback(): void {
    this.ftsPending = []
    this.block = null
    this.aligned = false
    this.left.clear()
    forgetBlock(this.db)
    if (!this.inTx) return
    try {
      this.db.exec('ROLLBACK')
    } catch {
      // Already rolled back by SQLite.
    }
    this.inTx = false
    this.pending = 0
  }

  /** The stored fingerprint of a session, and whether it is marked gone (null when not archived). */
  stored(sid: string): { fingerprint: string | null; gone: boolean } | null {
    const r = this.st.session.get(sid) as { fingerprint: string | null; gone_at: string | null } | undefined
    return r ? { fingerprint: r.fingerprint, gone: r.gone_at !== null } : null
  }

  /** `stored()` of every archived session, in one scan. */
  storedAll(): Map<string, { fingerprint: string | null; gone: boolean }> {
    const out = new Map<string, { fingerprint: string | null; gone: boolean }>()
    // As arrays (`raw`), not an object per row: 100,000 sessions are read here on every run.
    for (const [sid, fingerprint, gone] of this.db.prepare('SELECT sid, fingerprint, gone_at IS NOT NULL FROM sessions INDEXED BY sessions_fp').raw().iterate() as Iterable<[string, string | null, number]>) {
      out.set(sid, { fingerprint, gone: gone === 1 })
    }
    return out
  }

  /** Opens a session: its header replaces the stored one (titles change); provenance where known. */
  openSession(header: SessionRec, prov: Provenance = {}): boolean {
    const existed = this.st.session.get(header.sid) !== undefined
    const info = prov.info
    const p = header.parent
    this.st.upsertSession.run({
      sid: header.sid,
      harness: header.source?.harness ?? header.sid.slice(0, Math.max(0, header.sid.indexOf(':'))),
      native_id: header.native_id,
      cwd: header.cwd ?? str(info?.cwd),
      title: header.title ?? str(info?.title),
      title_source: header.title_source ?? str(info?.title_source),
      model: header.model ?? str(info?.model),
      agent_version: header.source?.agent_version ?? str(info?.agent_version),
      git_branch: header.git?.branch ?? str(info?.git_branch),
      created_at: header.created_at ?? str(info?.created_at),
      updated_at: header.updated_at ?? str(info?.updated_at),
      parent: p?.sid ?? str(info?.parent),
      parent_kind: p?.kind ?? (info?.parent ? 'subagent' : null),
      header: JSON.stringify(header),
      info: info ? JSON.stringify(info) : null,
      src_path: prov.path ?? null,
      src_size: prov.size ?? null,
      src_mtime_ms: prov.mtimeMs ?? null,
      src_ino: prov.ino ?? null,
      src_head: prov.head ?? null,
      now: now(),
      ver: this.ver,
    })
    if (p?.sid) this.st.link.run(header.sid, p.sid, p.kind, p.tool_use_id ?? null, p.agent_id ?? null, p.at ?? null)
    // A block holds one session's rows.
    this.sealBlock()
    this.left.clear()
    this.tailSeen = false
    const row = this.st.session.get(header.sid) as { r: number }
    this.ftsLater(-row.r, existed, header.title || header.cwd ? ['', '', header.title ?? '', header.cwd ?? ''] : null)
    this.sid = header.sid
    this.ord = 0
    this.counts = { added: 0, changed: 0, same: 0 }
    this.fresh = !existed
    this.messages = 0
    this.rows.reset()
    return !existed
  }

  /** One record of the open session. */
  write(rec: FerryRecord): void {
    if (rec.kind === 'session' || rec.kind === 'stream' || rec.kind === 'end') return
    this.writeRow(this.rows.row(rec))
  }

  /** One record of the open session, already prepared (by this thread's RowMaker or a reader thread's). */
  writeRow(row: Row): void {
    const { id, data, hasNative, text, tools, kind, role, ts, bidx } = row
    const sid = this.sid
    if (!sid || row.sid !== sid) throw new FerryError(`record ${String(id)} is not of the open session ${String(sid)}`, { code: 'invalid-input' })
    if (typeof id !== 'string' || id === '') throw new FerryError('a record without an id cannot be archived', { code: 'invalid-input' })
    // A reader started a block: so does the writer (only for a session new to the archive: an archived one's tail block is refilled here).
    if (bidx === 0 && this.fresh) this.align()
    // A record a fork inherited keeps its parent's id: it is archived with the parent, and read from there (harness/archive/source.ts).
    if (!id.startsWith(`${sid}:`)) {
      if (bidx !== undefined) this.aligned = false
      return
    }
    const ord = this.ord++
    if (kind === 'message') this.messages++
    // New ids (the common case) cost one statement; a known id is compared with what is stored.
    const block = this.openBlock()
    const plain = plainOf(data)
    const at = block.rows.length
    const ins = this.st.insert.run(id, sid, ord, kind, role, ts, tools || null, this.gen, this.ver, this.bid, at)
    const old = ins.changes === 1 ? undefined : (this.st.get.get(id) as { rid: number; sid: string; bid: number; bidx: number; active: number; ord: number })
    const indexed = text.length > 0 || tools !== ''
    if (!old) {
      const i = this.addRow(plain, bidx)
      if (i !== at) this.st.moveRow.run(i, ins.lastInsertRowid)
      if (indexed) this.st.ftsIns.run(ins.lastInsertRowid, text, tools, '', '')
      this.counts.added++
      this.pending++
      return
    }
    if (old.sid !== sid) throw new FerryError(`record id ${id} is already archived in session ${old.sid}`, { code: 'invalid-input' })
    // The stored row: from the block being filled when it is there (an id seen twice in one read).
    const was = old.bid === this.bid && this.block ? this.block.rows[old.bidx]! : blockOf(this.db, old.bid).row(old.bidx)
    // Its slot in the reader's block is not this one's (same content: none; changed: maybe other bytes, or the tail block's index).
    this.aligned = false
    // Read without native (convert --to archive of a native-less stream): what was kept of the source stays.
    let next: Uint8Array | null = null
    if (hasNative) next = samePlain(was, plain) ? null : plain
    else {
      const [w, now] = [unpackPlain(was), unpackPlain(plain)]
      if (w.body !== now.body) next = packParts(now.body, w.native, w.raw, CODEC_NONE).subarray(1)
    }
    if (next) {
      // Rewritten in place: into the session's block being filled; the old row stays in its block until none of that block's rows is left.
      if (old.bid !== this.bid) this.left.add(old.bid)
      this.openBlock()
      const bid = this.bid
      const i = this.addRow(next)
      this.st.update.run(ord, kind, role, ts, tools || null, this.gen, this.ver, bid, i, old.rid)
      this.ftsLater(old.rid, true, indexed ? [asString(text), tools, '', ''] : null)
      this.counts.changed++
    } else {
      if (old.active) this.st.touch.run(ord, this.gen, old.rid)
      else this.st.touchActive.run(ord, this.gen, this.ver, old.rid)
      this.counts.same++
    }
    this.pending++
  }

  /** The open session's block being filled (a new one, numbered, when there is none). */
  private openBlock(): BlockBuilder {
    if (!this.block) {
      this.block = new BlockBuilder()
      this.bid = ++this.lastBid
    }
    return this.block
  }

  /**
   * Adds a row to the open session's block and returns its index there; the block is written once
   * full. The first row an already archived session gets also takes in its last block when that is
   * not full (its rows keep their indexes and point at the new block; the old one is deleted): a
   * session archived a few records at a time (an agent's hook after every turn) would otherwise end
   * up as many small blocks, compressed almost row by row.
   */
  private addRow(plain: Uint8Array, bidx?: number): number {
    const block = this.openBlock()
    if (!this.tailSeen && !this.fresh && block.rows.length === 0) {
      this.tailSeen = true
      const last = this.st.lastBlock.get(this.sid, this.bid) as number | null
      if (last !== null) {
        const tail = blockOf(this.db, last)
        if (tail.bytes < BLOCK_BYTES) {
          for (let i = 0; i < tail.length; i++) block.add(tail.row(i))
          this.st.moveBlock.run(this.bid, this.sid, last)
          this.st.dropBlock.run(last)
          this.left.delete(last)
        }
      }
    }
    const i = block.add(plain)
    if (i !== bidx) this.aligned = false
    // Aligned, the reader's sealed block follows this row.
    if (block.full && !this.aligned) this.sealBlock()
    return i
  }

  /** Starts a block with the reader's (the one being filled, if any, is sealed here first). */
  private align(): void {
    if (this.block?.rows.length) this.sealBlock()
    this.openBlock()
    this.aligned = true
  }

  /** Whether rows point at a block whose sealed BLOB a reader is yet to send. */
  get awaitingBlock(): boolean {
    return this.aligned && !!this.block?.rows.length
  }

  /**
   * A reader's sealed block of `rows` rows: stored as the block being filled when that holds the same rows at the same
   * indexes (see `aligned`); otherwise not needed, the writer seals its own.
   */
  takeBlock(rows: number, blob: Uint8Array): void {
    const b = this.block
    const same = this.aligned && b !== null && b.rows.length === rows
    this.aligned = false
    if (!same) return
    this.block = null
    this.insertBlock(blob)
  }

  /** Writes the block being filled (at its size, the session's end, and before every commit: never half a block). */
  private sealBlock(): void {
    const b = this.block
    this.aligned = false
    if (!b) return
    this.block = null
    if (b.rows.length === 0) return
    this.insertBlock(b.seal())
  }

  private insertBlock(blob: Uint8Array): void {
    try {
      this.st.insertBlock.run(this.bid, blob)
    } catch (err) {
      // Rows already point at this block: the run must end (and roll back), not skip one session and commit them.
      throw lockError(this.path, err, this.waitMs) ?? new FerryError(`cannot write a block of the archive: ${(err as Error).message}`, { code: 'db-error', position: { file: this.path }, cause: err })
    }
  }

  /**
   * Closes the open session. `complete`: the whole source was read, so
   * records not seen now are off today's active branch; and the
   * fingerprint is stored so an unchanged re-run skips it.
   */
  finishSession(end: EndRec | undefined, opts: { complete: boolean; fingerprint?: string | null }): SessionCounts {
    const sid = this.sid
    if (!sid) return this.counts
    this.sealBlock()
    if (this.left.size > 0) {
      const used = new Set(this.st.blocksOf.all(sid) as number[])
      for (const bid of this.left) if (!used.has(bid)) this.st.dropBlock.run(bid)
      this.left.clear()
    }
    // A new session's counts are known here; scanning its records again would cost as much as writing them.
    const fresh = this.fresh && this.counts.changed === 0 && this.counts.same === 0
    if (opts.complete && !fresh) this.st.inactive.run(this.ver, sid, this.gen)
    ;(fresh ? this.st.finishFresh : this.st.finishSession).run({
      sid,
      end_rec: end ? JSON.stringify(end) : null,
      title: end?.title ?? null,
      updated_at: end?.updated_at ?? null,
      model: end?.model ?? null,
      fingerprint: opts.complete ? (opts.fingerprint ?? null) : null,
      ver: this.ver,
      ...(fresh ? { messages: this.messages, records: this.counts.added } : {}),
    })
    this.sid = null
    return this.counts
  }

  /**
   * Marks sessions of a harness gone from their source, except those listed
   * and the sub-agents of those listed (they are read with their parent, not
   * listed on their own); returns how many were newly marked.
   */
  markGone(harness: string, present: Set<string>): number {
    const all = this.db.prepare('SELECT sid, parent, gone_at IS NULL AS here FROM sessions INDEXED BY sessions_gone WHERE harness = ?').all(harness) as { sid: string; parent: string | null; here: number }[]
    const rows = all.filter((r) => r.here)
    const parentOf = new Map<string, string | null>()
    for (const r of all) if (r.parent !== null) parentOf.set(r.sid, r.parent)
    const isPresent = (sid: string): boolean => {
      for (let cur: string | null | undefined = sid, depth = 0; cur && depth < 16; cur = parentOf.get(cur), depth++) if (present.has(cur)) return true
      return false
    }
    const mark = this.db.prepare('UPDATE sessions SET gone_at = ?, ver = ? WHERE sid = ?')
    let n = 0
    const t = now()
    for (const r of rows) {
      if (isPresent(r.sid)) continue
      mark.run(t, this.ver, r.sid)
      n++
    }
    return n
  }

  /** Drops a session's fingerprint, so the next run reads it again. */
  forget(sid: string): void {
    this.db.prepare('UPDATE sessions SET fingerprint = NULL WHERE sid = ?').run(sid)
  }

  /** A session seen unchanged: clear a stale gone mark, and keep its provenance path current. */
  seenUnchanged(sid: string): void {
    this.db.prepare('UPDATE sessions SET gone_at = NULL, ver = ? WHERE sid = ? AND gone_at IS NOT NULL').run(this.ver, sid)
  }
}

/**
 * The highest version written, from `meta` (kept by every writer); an
 * archive made before that was kept is scanned once.
 */
export function topVersion(db: ArchiveDb): number {
  const m = db.prepare("SELECT value FROM meta WHERE key = 'ver'").get() as { value: string } | undefined
  if (m) return Number(m.value)
  const v = db.prepare('SELECT max(v) AS v FROM (SELECT max(ver) AS v FROM records UNION ALL SELECT max(ver) FROM sessions)').get() as { v: number | null }
  return v.v ?? 0
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null
}

/** A row of the sessions table, as `ls --archive` and search show it. */
export interface ArchivedSession {
  sid: string
  harness: string
  native_id: string
  cwd: string | null
  title: string | null
  title_source: string | null
  model: string | null
  agent_version: string | null
  git_branch: string | null
  created_at: string | null
  updated_at: string | null
  parent: string | null
  parent_kind: string | null
  message_count: number
  /** The message count the agent's own store gave when the session was listed (`ls`'s MSGS), when it gives one. */
  agent_message_count: number | null
  record_count: number
  src_path: string | null
  gone_at: string | null
  first_archived_at: string
  synced_at: string
}

// agent_message_count: what the live `ls` shows as MSGS, kept in the listing's info (never an error on a damaged info).
const SESSION_COLS = "sid, harness, native_id, cwd, title, title_source, model, agent_version, git_branch, created_at, updated_at, parent, parent_kind, message_count, CASE WHEN json_valid(info) THEN json_extract(info, '$.message_count') END AS agent_message_count, record_count, src_path, gone_at, first_archived_at, synced_at"

export function listArchived(db: ArchiveDb, harnesses?: readonly string[]): ArchivedSession[] {
  return [...iterateArchived(db, harnesses)]
}

/** `listArchived` row by row, newest first (the `sessions_recent` index): a caller that wants five reads five. */
export function iterateArchived(db: ArchiveDb, harnesses?: readonly string[]): IterableIterator<ArchivedSession> {
  const where = harnesses?.length ? `WHERE harness IN (${harnesses.map(() => '?').join(', ')})` : ''
  return db.prepare(`SELECT ${SESSION_COLS} FROM sessions ${where} ORDER BY coalesce(updated_at, created_at) DESC`).iterate(...(harnesses ?? [])) as IterableIterator<ArchivedSession>
}

/**
 * Finds an archived session by key (`harness:id`), native id, or a unique
 * prefix of either; null when none; throws (ambiguous) when several match.
 */
export function findArchived(db: ArchiveDb, ref: string): ArchivedSession | { ambiguous: string[] } | null {
  const exact = db.prepare(`SELECT ${SESSION_COLS} FROM sessions WHERE sid = ? OR native_id = ? LIMIT 3`).all(ref, ref) as ArchivedSession[]
  if (exact.length === 1) return exact[0]!
  if (exact.length > 1) return { ambiguous: exact.map((s) => s.sid) }
  const esc = ref.replace(/[\\%_]/g, (c) => `\\${c}`)
  const pre = db.prepare(`SELECT ${SESSION_COLS} FROM sessions WHERE sid LIKE ? ESCAPE '\\' OR native_id LIKE ? ESCAPE '\\' LIMIT 6`).all(`${esc}%`, `${esc}%`) as ArchivedSession[]
  if (pre.length === 1) return pre[0]!
  if (pre.length > 1) return { ambiguous: pre.map((s) => s.sid) }
  return null
}

export interface ReadArchivedOptions {
  /** Attach `native` (default true). */
  native?: boolean
  /** Follow with the session's sub-agent sessions, as the agent's own reader does (default true). */
  children?: boolean
  /** A stored record that does not decode (a damaged archive): reported here and skipped; without it, thrown. */
  onBadRow?: (err: FerryError) => void
}

const PAGE = 500

/** The records of one archived session (then its sub-agents'), in their source order. */
export async function* archivedRecords(db: ArchiveDb, sid: string, opts: ReadArchivedOptions = {}): AsyncGenerator<FerryRecord> {
  const withNative = opts.native !== false
  const s = db.prepare('SELECT header, end_rec FROM sessions WHERE sid = ?').get(sid) as { header: string; end_rec: string | null } | undefined
  if (!s) return
  const header = JSON.parse(s.header) as SessionRec
  if (!withNative) delete header.native
  yield header
  const page = db.prepare(`SELECT rid, ord, active, ${partsColumns(db)} FROM records WHERE sid = ? AND (ord > ? OR (ord = ? AND rid > ?)) ORDER BY ord, rid LIMIT ?`)
  let ord = -1
  let rid = 0
  for (;;) {
    const rows = pageOrThrow(db, () => page.all(sid, ord, ord, rid, PAGE), `session:${sid}`) as ({ rid: number; ord: number; active: number } & StoredRow)[]
    for (const r of rows) {
      let rec: FerryRecord & { branch?: { active?: boolean }; native?: unknown }
      try {
        const p = partsOf(r, db)
        rec = JSON.parse(p.body) as typeof rec
        if (withNative && (p.native !== null || p.raw !== null)) rec.native = nativeOf(p.native, p.raw)
      } catch (err) {
        if (!opts.onBadRow) throw badRow(db, `records:${r.rid}`, err)
        opts.onBadRow(badRow(db, `records:${r.rid}`, err))
        continue
      }
      // Gone from today's source (a rewind, a rewrite): kept, and marked off the active branch.
      if (!r.active && rec.kind === 'message') rec.branch = { ...(rec.branch ?? {}), active: false }
      yield rec
    }
    if (rows.length < PAGE) break
    const last = rows[rows.length - 1]!
    ord = last.ord
    rid = last.rid
    await new Promise((r) => setImmediate(r))
  }
  if (s.end_rec) yield JSON.parse(s.end_rec) as EndRec
  if (opts.children === false) return
  const kids = db.prepare('SELECT child FROM links WHERE parent = ? ORDER BY rowid').all(sid) as { child: string }[]
  for (const k of kids) if (k.child !== sid) yield* archivedRecords(db, k.child, opts)
}

export function archivedStream(db: ArchiveDb, sid: string, opts: ReadArchivedOptions = {}, onEnd?: () => void): Readable {
  const r = readableOf(archivedRecords(db, sid, opts))
  if (onEnd) r.once('close', onEnd)
  return r
}
