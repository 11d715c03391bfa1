// The `blobEncryptionKey` that Cursor's store.db keeps in `meta` never reaches anything ferry
// writes or prints: cat, convert (to another agent and to Cursor), the archive, export, render,
// show, the error log (FERRY_DEBUG) and the discovery cache. Every store kind is read, the chat
// stores under ~/.cursor, ~/.config/cursor and ~/.config/Cursor included.
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, kit, tempDir } from '../../kit.js'

// What fixtures/cursor/make-fixtures.mjs writes (a script, not a module to import).
const BLOB_KEY = '5eedf00d'.repeat(8)

const cu = kit('cursor')

/** Every spelling of the key a leak could take: as is, hex of its text, base64 of its text. */
const FORMS: string[] = [BLOB_KEY, Buffer.from(BLOB_KEY).toString('hex'), Buffer.from(BLOB_KEY).toString('base64')]

/** The files under `dir` (recursively) whose bytes hold any form of the key; store.db files of the source excepted. */
function leaks(dir: string, skip: (p: string) => boolean = () => false): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (statSync(p).isFile() && !skip(p)) {
        const b = readFileSync(p)
        if (FORMS.some((f) => b.includes(f))) out.push(p)
      }
    }
  }
  walk(dir)
  return out
}

t.test('blobEncryptionKey never reaches an output, the archive, an export, a page or a log', async (t) => {
  const home = cu.home(t, 'stores')
  const work = tempDir(t, 'ferry-cursor-key-')
  const isSourceStore = (p: string) => p.startsWith(home) && p.endsWith('store.db')
  t.same(leaks(home, isSourceStore), [], 'fixture: the key is only in the store.db files')
  t.ok(leaks(home).length >= 3, 'fixture: every store.db holds it')
  const env = { HOME: home, PATH: '/nonexistent', FERRY_DEBUG: '1', XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(work, 'data'), XDG_CACHE_HOME: join(work, 'cache') }
  const db = join(work, 'archive.db')
  const runs: Array<[string, string[]]> = [
    ['cat', ['cat', '--from', 'cursor', '--all']],
    ['convert to claude-code', ['convert', '--from', 'cursor', '--all', '--to', 'claude-code', '--out', join(work, 'cc')]],
    ['convert to cursor', ['convert', '--from', 'cursor', '--all', '--to', 'cursor', '--out', join(work, 'cursor')]],
    ['archive', ['archive', '--db', db]],
    ['export', ['export', '--db', db, '--format', 'jsonl', '--out', join(work, 'export')]],
    ['render html', ['render', '--from', 'cursor', '--all', '--format', 'html', '--no-redact', '--out', join(work, 'page.html')]],
    ['render md', ['render', '--from', 'cursor', '--all', '--format', 'md', '--no-redact']],
    ['show', ['show', '--from', 'cursor', '--all']],
  ]
  for (const [name, args] of runs) {
    const r = await ferry(args, { env })
    t.equal(r.code, 0, `${name}: ${r.stderr.slice(-300)}`)
    t.notOk(FORMS.some((f) => r.stdout.includes(f) || r.stderr.includes(f)), `${name}: not on stdout or stderr`)
  }
  t.ok(statSync(db).size > 0 && statSync(join(work, 'page.html')).size > 0, 'the archive and the page were written')
  t.same(leaks(work), [], 'no file ferry wrote (archive, export, converted sessions, page, cache) holds it')
  t.same(leaks(home, isSourceStore), [], 'nothing under HOME but the source stores holds it')
})
