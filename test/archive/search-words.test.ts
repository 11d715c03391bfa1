// `ferry search` takes plain words as written (FTS5 syntax only with --fts), bounds the work,
// names the `ferry show REF#N` of each hit, and exits 1 when nothing matches: real CLI processes
// on an archive `ferry archive` made (the HOME of test/mcp/home.ts).
import t from 'tap'
import { ferry, fileTimeout, jsonl, sh } from '../kit.js'
import { MARKER, mcpHome, SECRET_TITLE } from '../mcp/home.js'

fileTimeout(t, 180_000)
const { home } = await mcpHome(t)
const search = (...args: string[]) => ferry(['--home', home, 'search', ...args])

t.test('words with hyphens, dots, slashes and dashes are found as written', async (t) => {
  for (const words of [[MARKER], ['probe.txt'], ['src/a.ts'], ['--', '--force'], ['probe.txt', MARKER.toLowerCase()]]) {
    const r = await search('--json', ...words)
    t.equal(r.code, 0, `${words.join(' ')}: ${r.stderr}`)
    t.same([...new Set(jsonl(r.stdout).map((h) => h.title))], [SECRET_TITLE], `${words.join(' ')}: the planted session`)
  }
  const literal = await search('foo', 'AND')
  t.equal(literal.code, 1, '"foo AND" is two words, not FTS5 syntax: no match')
})

t.test('each hit names the ferry show REF#N that opens it', async (t) => {
  const r = await search(MARKER, '--json')
  const [hit] = jsonl(r.stdout)
  t.match(hit.ref, /^claude-code:[0-9a-f-]+#1$/, 'ref')
  t.equal(hit.message, 1)
  t.equal(hit.show, `ferry show '${hit.ref}' --archive --home ${home}`)
  const text = await search('hugeword7')
  const show = text.stdout.split('\n').find((l) => l.trim().startsWith('ferry show '))!
  t.match(show, /#7' --archive --home /, 'the text output names it too')
  // The line as printed, run by a shell ($FERRY is node and bin/ferry.js).
  const opened = await sh(`$FERRY ${show.trim().replace(/^ferry /, '')} --tools none`)
  t.equal(opened.code, 0, opened.stderr)
  t.match(opened.stdout, /^#7 user/m, 'the command opens the hit: message #7 first')
  t.match(opened.stdout, /\bhugeword7\b/)
  t.notMatch(opened.stdout, /\bhugeword6\b/)
})

t.test('no match is exit 1 with one line on stderr', async (t) => {
  for (const extra of [[], ['--json']]) {
    const r = await search('zzznothingmatchesthis', ...extra)
    t.equal(r.code, 1, `exit 1 ${extra.join(' ')}`)
    t.equal(r.stdout, '', 'nothing on stdout')
    t.match(r.stderr, /^ferry: no matches in .*archive\.db\n$/)
  }
})

t.test('--fts: FTS5 syntax; a malformed query is one usage line without SQLite text', async (t) => {
  const or = await search('--fts', `"${MARKER}" OR hugeword7`, '--json')
  t.equal(or.code, 0, or.stderr)
  t.equal(new Set(jsonl(or.stdout).map((h) => h.sid)).size, 2, 'OR: both sessions')
  const title = await search('--fts', 'title:rotation', '--json')
  t.same(jsonl(title.stdout).map((h) => h.kind), ['session'], 'a column filter')
  for (const bad of ['foo AND', `${MARKER}`, '"unterminated', 'NEAR(']) {
    const r = await search('--fts', bad)
    t.equal(r.code, 2, `${bad}: usage error`)
    t.match(r.stderr, /^ferry: search: not a valid FTS5 query: /, bad)
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line')
    t.notMatch(r.stderr, /fts5:|syntax error near|SqliteError/, 'no SQLite text')
  }
})

t.test('the work is bounded: repeated words count once, limits are usage errors', async (t) => {
  const start = Date.now()
  const repeated = await search(Array(10_000).fill('hugeword7').join(' '), '--json')
  t.equal(repeated.code, 0, repeated.stderr)
  t.equal(jsonl(repeated.stdout)[0]?.message, 7, 'a word 10,000 times is the word once')
  t.comment(`10,000 repeats: ${Date.now() - start} ms`)
  const many = await search(...Array.from({ length: 100 }, (_, i) => `w${i}`))
  t.equal(many.code, 2)
  t.match(many.stderr, /^ferry: search: at most 64 different words in a query\n$/)
  const long = await search('--fts', Array(2_000).fill('word').join(' OR '))
  t.equal(long.code, 2)
  t.match(long.stderr, /^ferry: search: an --fts query is at most 4000 characters/)
  const empty = await search('--', '--- ...')
  t.equal(empty.code, 2)
  t.match(empty.stderr, /^ferry: search: nothing to search for/)
})
