/**
 * Gemini CLI (issue 38): `ferry cat` of one generated 1 GiB chat recording
 * (10 MiB with --quick) next to the baseline loop over the same file, with
 * peak RSS (the reader makes two passes, the first keeping ids only), and
 * `ferry ls --harness gemini` over 10,000 generated sessions (1,000 with
 * --quick). The data is generated here, shaped as fixtures/gemini/make-fixtures.mjs
 * (each model turn written twice, results in toolCalls and again as a user record).
 */
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'gemini'

const CWD = '/home/dev/bench-app'
const SLUG = 'bench-app'
const uuid = (s, n) => `${String(s).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`

/** One session file of about `bytes` bytes: the turns of a genuine recording, repeated. */
function writeSession(path, sid, bytes) {
  const fd = openSync(path, 'w')
  const t0 = Date.parse('2026-11-20T09:30:00.000Z')
  const iso = (i) => new Date(t0 + i * 1000).toISOString()
  let size = 0
  const put = (o) => {
    const s = JSON.stringify(o) + '\n'
    size += Buffer.byteLength(s)
    writeSync(fd, s)
  }
  put({ sessionId: sid, projectHash: '0'.repeat(64), startTime: iso(0), lastUpdated: iso(0), kind: 'main' })
  const filler = 'lorem ipsum dolor sit amet '.repeat(40)
  for (let i = 0; size < bytes; i++) {
    const u = uuid(i, 1)
    const g = uuid(i, 2)
    put({ id: u, timestamp: iso(i), type: 'user', content: [{ text: `Step ${i}: check the build. ${filler}` }] })
    put({ $set: { lastUpdated: iso(i) } })
    const rec = { id: g, timestamp: iso(i), type: 'gemini', content: `Running step ${i}.`, thoughts: [{ subject: '', description: `Plan ${i}`, timestamp: iso(i) }], tokens: { input: 1000, output: 20, cached: 0, thoughts: 5, tool: 0, total: 1025 }, model: 'gemini-2.5-pro' }
    put(rec)
    put({ $set: { lastUpdated: iso(i) } })
    const id = `run_shell_command__call_${i}`
    const result = [{ functionResponse: { id, name: 'run_shell_command', response: { output: `<untrusted_context>\nOutput: ${filler}\n</untrusted_context>` } } }]
    put({ ...rec, toolCalls: [{ id, name: 'run_shell_command', args: { command: `make step-${i}`, description: 'Build' }, result, status: 'success', timestamp: iso(i), resultDisplay: filler, displayName: 'Shell', description: '', renderOutputAsMarkdown: false }] })
    put({ id: uuid(i, 3), timestamp: iso(i), type: 'user', content: result })
    put({ $set: { lastUpdated: iso(i) } })
  }
  closeSync(fd)
}

function store(dir, n, bytesEach) {
  const root = join(dir, '.gemini')
  const chats = join(root, 'tmp', SLUG, 'chats')
  if (existsSync(join(dir, 'done'))) return
  mkdirSync(chats, { recursive: true })
  writeFileSync(join(root, 'projects.json'), JSON.stringify({ projects: { [CWD]: SLUG } }, null, 2))
  writeFileSync(join(root, 'tmp', SLUG, '.project_root'), CWD)
  for (let s = 0; s < n; s++) {
    const sid = uuid(s + 1, 0).replace(/-0000-4000-8000-0+$/, '') + '-1b7d-4c55-9e21-' + String(s).padStart(12, '0')
    writeSession(join(chats, `session-2026-11-20T09-30-${sid.slice(0, 8)}.jsonl`), sid, bytesEach)
  }
  writeFileSync(join(dir, 'done'), '')
}

export default async function (b) {
  const size = b.quick ? 10 * 2 ** 20 : 2 ** 30
  const big = join(b.outDir, 'data', `gemini-big-${size}`)
  store(big, 1, size)
  const file = b.findFiles(big, /\.jsonl$/)[0]
  const bytes = b.size(file)
  const label = `gemini ${b.quick ? '10M' : '1G'}`
  await b.baseline(label, file)
  const cat = await b.ferry(`${label} → stream (cat --no-native)`, ['--home', big, 'cat', file, '--no-native'], { bytes, against: label })
  b.ratio(`${label} → stream`, cat.vsBaseline, 'MB/s vs the loop on the same file', { rss: cat.rssVsBaseline })
  const n = b.quick ? 1000 : 10000
  const many = join(b.outDir, 'data', `gemini-sessions-${n}`)
  store(many, n, 16 * 1024)
  await b.ferry(`ferry ls --harness gemini: ${n} sessions`, ['--home', many, 'ls', '--harness', 'gemini'], { env: { FERRY_NO_CACHE: '1' } })
}
