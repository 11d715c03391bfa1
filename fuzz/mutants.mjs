// #47: Cursor's three stores (agent transcripts, the CLI's chat store.db, the editor's state.vscdb) and
// ZCode's database, one line or row damaged per run (cut, a flipped bit, 100,000-deep nesting, a
// megabyte value, a wrong type, invalid UTF-8, NULL, a BLOB for a TEXT, the row gone), then read by
// real `ferry ls`, `cat` and `convert` processes. What must hold: no crash or hang, every line on
// stderr a located one-liner with a code, no file of the store changed, nothing partial in the
// output, and every record of the sample whose text did not come from the damaged line or row still
// read (records of a damaged session-level row, such as Cursor's composerData or ZCode's session
// row, may go with it, but never silently).
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { changedFiles, leftInTmp, dbState, HOME, judge, oneLiners, pick, ROOT, run, temps, treeState } from './proc.mjs'

const TIMEOUT = 45_000
const TREES = ['.cursor', '.config', '.zcode']

/** One generated home per campaign directory: every Cursor store (make-fixtures.mjs) and ZCode's sample database. */
const templates = new Map()
async function template(dir) {
  if (templates.has(dir)) return templates.get(dir)
  const home = join(dir, 'stores-template')
  rmSync(home, { recursive: true, force: true })
  const r = spawnSync(process.execPath, [join(ROOT, 'fixtures/cursor/make-fixtures.mjs'), home], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`make-fixtures: ${r.stderr}`)
  cpSync(join(HOME, '.zcode'), join(home, '.zcode'), { recursive: true })
  const full = await texts(home)
  // Sub-agent sessions and their parents (a damaged parent row may take its sub-agents along).
  const parentOf = new Map()
  for (const line of full.r.stdout.split('\n')) {
    if (!line.includes('"kind":"session"')) continue
    const rec = JSON.parse(line)
    if (rec.parent?.sid) parentOf.set(rec.sid, rec.parent.sid)
  }
  // Every string the stores hold: a text the reader makes up (ZCode's "interrupted" result) is not a user's.
  const everything = Object.values(sites(home)).flat().map((s) => ((s.original = currentValue(s)), attribution(s))).join('\u0001')
  for (const s of [...full.map.keys()]) if (!everything.includes(s.slice(0, 24))) full.map.delete(s)
  // The same without the editor's database: what a junk -wal on it may cost at most.
  const noIde = join(dir, 'stores-no-ide')
  rmSync(noIde, { recursive: true, force: true })
  cpSync(home, noIde, { recursive: true })
  rmSync(join(noIde, '.config/Cursor/User/globalStorage/state.vscdb'))
  const t = { home, full, parentOf, noIde: await texts(noIde) }
  rmSync(noIde, { recursive: true, force: true })
  templates.set(dir, t)
  return t
}

/** Every record read from the home: `cat` of every Cursor and ZCode session, archived ones too. */
async function cat(home) {
  return run(['--home', home, 'cat', '--from', 'cursor', '--from', 'zcode', '--all'], { timeout: TIMEOUT })
}

const norm = (s) => String(s).replace(/\s+/g, ' ').trim()
/** The strings a block carries (what a user or the agent wrote), normalised. */
function blockStrings(b) {
  const out = []
  const leaves = (v) => {
    if (typeof v === 'string') out.push(norm(v))
    else if (Array.isArray(v)) v.forEach(leaves)
    else if (v && typeof v === 'object') Object.values(v).forEach(leaves)
  }
  if (b.type === 'text' || b.type === 'thinking') leaves(b.text)
  else if (b.type === 'tool_use') leaves(b.input)
  else if (b.type === 'tool_result') leaves(b.content)
  return out.filter((s) => s.length >= 4)
}

/** The messages' strings of a `cat` output: snippet → sid. */
async function texts(home) {
  const r = await cat(home)
  return { map: snippets(r.stdout), r }
}
function snippets(stdout) {
  const map = new Map()
  for (const line of stdout.split('\n')) {
    let rec
    try {
      rec = JSON.parse(line)
    } catch {
      continue
    }
    if (rec.kind !== 'message') continue
    for (const b of rec.blocks ?? []) for (const s of blockStrings(b)) map.set(s.slice(0, 40), rec.sid)
  }
  return map
}

/** Every line and row that can be damaged, by store. */
function sites(home) {
  const out = { transcript: [], chat: [], ide: [], zcode: [] }
  const at = join(home, '.cursor/projects')
  for (const n of readdirSync(at, { recursive: true, encoding: 'utf8' })) {
    if (!n.endsWith('.jsonl')) continue
    const file = join(at, n)
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
    // A sub-agent's transcript is read with its parent's session.
    const session = n.includes('/subagents/') ? basename(dirname(dirname(n))) : basename(n, '.jsonl')
    lines.forEach((_, i) => out.transcript.push({ store: 'transcript', file, line: i, session }))
  }
  const rows = (store, file, table, key, col, where = '', session = () => null) => {
    const d = new Database(file, { readonly: true })
    for (const r of d.prepare(`SELECT ${key} AS k FROM ${table} ${where}`).all()) out[store].push({ store, file, table, key, col, k: r.k, session: session(r.k) })
    d.close()
  }
  for (const base of ['.cursor/chats', '.config/cursor/chats', '.config/Cursor/chats']) {
    const root = join(home, base)
    if (!existsSync(root)) continue
    for (const n of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('store.db'))) {
      const sid = basename(dirname(n))
      rows('chat', join(root, n), 'blobs', 'id', 'data', '', () => sid)
      rows('chat', join(root, n), 'meta', 'key', 'value', '', () => sid)
    }
  }
  const vscdb = join(home, '.config/Cursor/User/globalStorage/state.vscdb')
  rows('ide', vscdb, 'cursorDiskKV', 'key', 'value', '', (k) => k.split(':')[1])
  rows('ide', vscdb, 'composerHeaders', 'composerId', 'value', '', (k) => k)
  const zdb = join(home, '.zcode/cli/db/db.sqlite')
  for (const table of ['part', 'message']) rows('zcode', zdb, table, 'id', 'data', '', () => null)
  for (const col of ['title', 'directory', 'time_created', 'version', 'parent_id']) rows('zcode', zdb, 'session', 'id', col, '', (k) => k)
  return out
}

/** Is the row or line one a whole session hangs on (its records may go with it, with a report)? */
function sessionLevel(site) {
  if (site.store === 'chat') return site.table === 'meta' || !isJson(site.original)
  if (site.store === 'ide') return site.table === 'composerHeaders' || String(site.k).startsWith('composerData:')
  if (site.store === 'zcode') return site.table === 'session' || site.table === 'message'
  return false
}

function isJson(buf) {
  try {
    JSON.parse(Buffer.isBuffer(buf) ? buf.toString('utf8') : String(buf))
    return true
  } catch {
    return false
  }
}

const DEEP = '\u0000deep\u0000'
const WRONG = [7, -1e308, 'seven', null, true, [], {}, [[['x']]], { kind: 'message' }]

/** A JSON-aware edit: one node of the value replaced (deep nesting, a huge string, a wrong type). */
function editJson(rand, text, op) {
  let doc
  try {
    doc = JSON.parse(text)
  } catch {
    return null
  }
  const nodes = []
  const walk = (v, set) => {
    nodes.push({ v, set })
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, (y) => (v[i] = y)))
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], (y) => (v[k] = y))
  }
  walk(doc, (y) => (doc = y))
  const strings = nodes.filter((n) => typeof n.v === 'string')
  const target = op === 'huge' && strings.length ? pick(rand, strings) : pick(rand, nodes.length > 1 ? nodes.slice(1) : nodes)
  if (op === 'deep') target.set(DEEP)
  else if (op === 'huge') target.set((typeof target.v === 'string' ? target.v : '') + ' ' + 'h'.repeat(1_000_000 + Math.floor(rand() * 4_000_000)))
  else target.set(pick(rand, WRONG.filter((w) => typeof w !== typeof target.v)))
  return JSON.stringify(doc).replace(JSON.stringify(DEEP), '['.repeat(100_000) + ']'.repeat(100_000))
}

/** One damage of a value (a line's bytes or a cell's), as bytes, a string, or null for SQL NULL / a deleted row. */
function damage(rand, original, forRow) {
  const buf = Buffer.isBuffer(original) ? original : Buffer.from(String(original ?? ''), 'utf8')
  const ops = ['truncate', 'flip', 'deep', 'huge', 'wrong-type', 'invalid-utf8', 'delete', ...(forRow ? ['null', 'blob', 'integer'] : [])]
  const op = pick(rand, ops)
  const p = Math.floor(rand() * buf.length)
  switch (op) {
    case 'truncate':
      return { op, value: buf.subarray(0, p) }
    case 'flip': {
      const b = Buffer.from(buf)
      if (b.length) b[p] ^= 1 << Math.floor(rand() * 8)
      return { op, value: b }
    }
    case 'invalid-utf8':
      return { op, value: Buffer.concat([buf.subarray(0, p), Buffer.from([0xff, 0xc3, 0x28]), buf.subarray(p)]) }
    case 'deep':
    case 'huge':
    case 'wrong-type': {
      const t = editJson(rand, buf.toString('utf8'), op)
      return t === null ? { op: `${op} (not JSON: cut)`, value: buf.subarray(0, p) } : { op, value: t }
    }
    case 'delete':
      return { op, value: undefined }
    case 'null':
      return { op, value: null }
    case 'blob':
      return { op, value: Buffer.from(buf) }
    case 'integer':
      return { op, value: 42 }
  }
}

function currentValue(site) {
  if (site.store === 'transcript') return readFileSync(site.file, 'utf8').split('\n').filter(Boolean)[site.line]
  const db = new Database(site.file, { readonly: true })
  const v = db.prepare(`SELECT ${site.col} AS v FROM ${site.table} WHERE ${site.key} = ?`).get(site.k)?.v
  db.close()
  return v ?? ''
}

/** Applies the damage to the copy; returns the site's original value (for attribution). */
function apply(site, d) {
  if (site.store === 'transcript') {
    const lines = readFileSync(site.file).toString('utf8').split('\n')
    const kept = lines.filter(Boolean)
    site.original = kept[site.line]
    const out = []
    let i = -1
    for (const l of lines) {
      if (l) i++
      if (l && i === site.line) {
        if (d.value !== undefined) out.push(Buffer.isBuffer(d.value) ? d.value : Buffer.from(String(d.value)))
      } else out.push(Buffer.from(l))
    }
    writeFileSync(site.file, Buffer.concat(out.flatMap((b, k) => (k < out.length - 1 ? [b, Buffer.from('\n')] : [b]))))
    return
  }
  const db = new Database(site.file)
  // Damage, not an edit: no cascade takes a deleted row's children with it.
  db.pragma('foreign_keys = OFF')
  site.original = db.prepare(`SELECT ${site.col} AS v FROM ${site.table} WHERE ${site.key} = ?`).get(site.k)?.v
  // A TEXT cell stays TEXT when the damaged bytes are still UTF-8 (SQLite keeps what it is given).
  let v = d.value
  if (Buffer.isBuffer(v) && typeof site.original === 'string' && d.op !== 'blob' && d.op !== 'invalid-utf8') v = v.toString('utf8')
  try {
    if (v === undefined) db.prepare(`DELETE FROM ${site.table} WHERE ${site.key} = ?`).run(site.k)
    else db.prepare(`UPDATE ${site.table} SET ${site.col} = ? WHERE ${site.key} = ?`).run(v, site.k)
  } catch (err) {
    // A NOT NULL column refuses NULL: that mutation becomes an empty string.
    db.prepare(`UPDATE ${site.table} SET ${site.col} = '' WHERE ${site.key} = ?`).run(site.k)
    d.op += ` (${err.code}: empty)`
  }
  db.close()
}

/** The strings of the original line or row, for "this record came from the damaged one". */
function attribution(site) {
  const raw = site.original === undefined || site.original === null ? '' : Buffer.isBuffer(site.original) ? site.original.toString('latin1') : String(site.original)
  const out = [norm(raw)]
  try {
    const leaves = (v) => (typeof v === 'string' ? (out.push(norm(v)), isJson(v) && leaves(JSON.parse(v))) : Array.isArray(v) ? v.forEach(leaves) : v && typeof v === 'object' ? Object.values(v).forEach(leaves) : undefined)
    leaves(JSON.parse(raw))
  } catch {}
  // A hex-encoded meta["0"] of a chat store.
  if (/^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0) out.push(norm(Buffer.from(raw, 'hex').toString('utf8')))
  return out.join('\u0001')
}

function copyHome(t, dir) {
  const home = join(dir, 'home')
  rmSync(home, { recursive: true, force: true })
  cpSync(t.home, home, { recursive: true })
  return home
}

function storeState(home) {
  const all = new Map()
  for (const tree of TREES) for (const [k, v] of treeState(join(home, tree))) all.set(`${tree}/${k}`, v)
  return all
}

/** The output of a convert: no temp file, and every JSONL line written whole. */
function partialIn(out) {
  const left = temps(out).map((n) => join(out, n))
  if (!existsSync(out)) return left
  for (const n of readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    if (!n.endsWith('.jsonl')) continue
    for (const l of readFileSync(join(out, n), 'utf8').split('\n').filter(Boolean)) {
      try {
        JSON.parse(l)
      } catch {
        left.push(join(out, n))
        break
      }
    }
  }
  return left
}

async function readAll(counts, notes, home, dir, ref) {
  const l = await run(['--home', home, 'ls', '--json', '--all'], { timeout: TIMEOUT })
  judge(counts, notes, 'ls', l)
  oneLiners(counts, notes, 'ls', l)
  const c = await cat(home)
  judge(counts, notes, 'cat', c)
  oneLiners(counts, notes, 'cat', c)
  if (ref) {
    const out = join(dir, 'out')
    rmSync(out, { recursive: true, force: true })
    mkdirSync(out)
    const v = await run(['--home', home, 'convert', ref, '--to', 'claude-code', '--out', `${out}/`], { timeout: TIMEOUT })
    judge(counts, notes, `convert ${ref}`, v)
    oneLiners(counts, notes, `convert ${ref}`, v)
    const left = partialIn(out)
    if (left.length) {
      counts.partial += left.length
      notes.push(`convert ${ref} left ${left.join(', ')}`)
    }
  }
  return c
}

export const MUTANT_SCENARIOS = {
  async 'cursor and zcode: one line or row damaged → ls, cat, convert'(rand, dir, counts, notes) {
    const t = await template(dir)
    const home = copyHome(t, dir)
    const all = sites(home)
    const site = pick(rand, pick(rand, Object.values(all).filter((s) => s.length)))
    const d = damage(rand, currentValue(site), site.store !== 'transcript')
    apply(site, d)
    const what = `${site.store} ${site.table ?? `line ${site.line + 1}`} ${site.k ?? basename(site.file)}: ${d.op}`
    const before = storeState(home)
    const session = site.session ?? null
    const c = await readAll(counts, notes, home, dir, session ? `${site.store === 'zcode' ? 'zcode' : 'cursor'}:${session}` : null)
    const changed = changedFiles(before, storeState(home))
    if (changed.length) {
      counts.changed += changed.length
      notes.push(`${what}: reading changed ${changed.join(', ')}`)
    }
    const got = snippets(c.stdout)
    const attr = attribution(site)
    const whole = sessionLevel(site)
    const lost = []
    let ofSession = 0
    for (const [s, sid] of t.full.map) {
      if (got.has(s)) continue
      const mine = session && (sid.endsWith(session) || String(t.parentOf.get(sid) ?? '').endsWith(session))
      if (attr.includes(s.slice(0, 24))) continue
      if (whole && (mine || site.store === 'zcode')) {
        ofSession++
        continue
      }
      lost.push(s)
    }
    if (lost.length) {
      counts.lost += lost.length
      notes.push(`${what}: lost ${lost.length} record text(s) of undamaged lines/rows: ${lost.slice(0, 3).map((s) => JSON.stringify(s)).join(', ')}`)
    }
    // Cursor lists the editor's chats from composerHeaders: a composer whose header row is gone is not
    // a chat Cursor shows either (its data may be what a deleted chat left), so ferry does not list it.
    // The same for a ZCode session row: ZCode lists sessions from that table (its own delete takes the
    // messages with it); messages left without their session row are not listed (docs/guarantees.md).
    const hidden = (site.table === 'composerHeaders' || (site.store === 'zcode' && site.table === 'session')) && d.op === 'delete'
    if (ofSession && !c.stderr.trim() && !hidden) {
      counts.lost += ofSession
      notes.push(`${what}: ${ofSession} record text(s) of the damaged session gone without a word on stderr`)
    }
    if (notes.length) notes.unshift(`damage: ${what}`)
  },
  async 'cursor: junk state.vscdb-wal, zeroed -shm → ls, cat, convert (bounded, no snapshot left)'(rand, dir, counts, notes) {
    const t = await template(dir)
    const home = copyHome(t, dir)
    const db = join(home, '.config/Cursor/User/globalStorage/state.vscdb')
    const size = 4096 + Math.floor(rand() * 65536)
    const kind = Math.floor(rand() * 3)
    // Junk of three kinds: one repeated byte, random bytes, and a real WAL header over garbage frames.
    const wal = kind === 0 ? Buffer.alloc(size, 0x5a) : Buffer.from(Array.from({ length: size }, () => Math.floor(rand() * 256)))
    if (kind === 2) Buffer.from('377f0682002de21800001000', 'hex').copy(wal, 0)
    writeFileSync(`${db}-wal`, wal)
    writeFileSync(`${db}-shm`, Buffer.alloc(32768))
    const before = dbState(db)
    const tmp = join(dir, 'tmp')
    rmSync(tmp, { recursive: true, force: true })
    mkdirSync(tmp)
    const env = { TMPDIR: tmp }
    const runs = [
      ['ls', ['--home', home, 'ls', '--json', '--all']],
      ['cat', ['--home', home, 'cat', '--from', 'cursor', '--all']],
      ['convert', ['--home', home, 'convert', 'cursor:f6a5b7c8', '--to', 'claude-code', '--out', `${join(dir, 'out')}/`]],
    ]
    rmSync(join(dir, 'out'), { recursive: true, force: true })
    let catOut = ''
    for (const [what, args] of runs) {
      const r = await run(args, { timeout: TIMEOUT, env })
      judge(counts, notes, `${what} (wal kind ${kind})`, r)
      oneLiners(counts, notes, `${what} (wal kind ${kind})`, r)
      if (what === 'cat') catOut = r.stdout
    }
    if (dbState(db) !== before) {
      counts.changed++
      notes.push(`state.vscdb, its -wal or -shm changed by reading (wal kind ${kind})`)
    }
    const left = leftInTmp(tmp)
    if (left.length) {
      counts.partial += left.length
      notes.push(`left in TMPDIR: ${left.join(', ')}`)
    }
    counts.partial += partialIn(join(dir, 'out')).length
    const got = snippets(catOut)
    const lost = [...t.noIde.map.keys()].filter((s) => !got.has(s) && t.noIde.map.get(s).startsWith('cursor:'))
    if (lost.length) {
      counts.lost += lost.length
      notes.push(`records of the transcripts and chat stores lost with the editor's database: ${lost.slice(0, 3).join(', ')}`)
    }
  },
}
