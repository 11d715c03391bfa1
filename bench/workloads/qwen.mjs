/**
 * Qwen Code (issue 38): `ferry cat` of one generated 1 GiB session (10 MiB
 * with --quick) next to the baseline loop over the same file, with peak RSS
 * (the reader's first pass keeps only `uuid → parentUuid` when the chain
 * branches, nothing when it is linear), and `ferry ls --harness qwen` over
 * 10,000 generated sessions (1,000 with --quick). The data is generated here,
 * shaped as fixtures/qwen/make-fixtures.mjs (system records in the chain).
 */
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'qwen'

const CWD = '/home/dev/bench-app'
const PROJECT = CWD.replace(/[^A-Za-z0-9]/g, '-')
const uuid = (s, n) => `${String(s).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`

function writeSession(path, sid, bytes, s) {
  const fd = openSync(path, 'w')
  const t0 = Date.parse('2026-11-20T09:30:00.000Z')
  const iso = (i) => new Date(t0 + i * 1000).toISOString()
  let size = 0
  let last = null
  let k = 0
  const put = (type, body) => {
    const u = uuid(s, k++)
    const s2 = JSON.stringify({ uuid: u, parentUuid: last, sessionId: sid, timestamp: iso(k), type, cwd: CWD, version: '0.24.4', ...body }) + '\n'
    last = u
    size += Buffer.byteLength(s2)
    writeSync(fd, s2)
  }
  const filler = 'lorem ipsum dolor sit amet '.repeat(40)
  for (let i = 0; size < bytes; i++) {
    put('user', { provenance: 'real_user', message: { role: 'user', parts: [{ text: `Step ${i}: check the build. ${filler}` }] } })
    put('system', { provenance: 'system', subtype: 'ui_telemetry', systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response', input_token_count: 1000 } } })
    put('assistant', { provenance: 'assistant_output', model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: `Plan ${i}`, thought: true }, { text: `Running step ${i}.` }, { functionCall: { id: `call_${i}`, name: 'run_shell_command', args: { command: `make step-${i}` } } }] }, usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 20, thoughtsTokenCount: 5, totalTokenCount: 1025 } })
    put('tool_result', { provenance: 'tool_result', message: { role: 'user', parts: [{ functionResponse: { id: `call_${i}`, name: 'run_shell_command', response: { output: `Command: make\nOutput: ${filler}\nExit Code: 0` } } }] }, toolCallResult: { callId: `call_${i}`, status: 'success', resultDisplay: { type: 'shell_result', output: filler }, executionStatus: 'success' } })
  }
  closeSync(fd)
}

function store(dir, n, bytesEach) {
  if (existsSync(join(dir, 'done'))) return
  const chats = join(dir, '.qwen', 'projects', PROJECT, 'chats')
  mkdirSync(chats, { recursive: true })
  for (let s = 0; s < n; s++) {
    const sid = `${String(s).padStart(8, '0')}-1b7d-4c55-9e21-5a8d7c6b4e10`
    writeSession(join(chats, `${sid}.jsonl`), sid, bytesEach, s)
  }
  writeFileSync(join(dir, 'done'), '')
}

export default async function (b) {
  const size = b.quick ? 10 * 2 ** 20 : 2 ** 30
  const big = join(b.outDir, 'data', `qwen-big-${size}`)
  store(big, 1, size)
  const file = b.findFiles(big, /\.jsonl$/)[0]
  const bytes = b.size(file)
  const label = `qwen ${b.quick ? '10M' : '1G'}`
  await b.baseline(label, file)
  const cat = await b.ferry(`${label} → stream (cat --no-native)`, ['--home', big, 'cat', file, '--no-native'], { bytes, against: label })
  b.ratio(`${label} → stream`, cat.vsBaseline, 'MB/s vs the loop on the same file', { rss: cat.rssVsBaseline })
  const n = b.quick ? 1000 : 10000
  const many = join(b.outDir, 'data', `qwen-sessions-${n}`)
  store(many, n, 16 * 1024)
  await b.ferry(`ferry ls --harness qwen: ${n} sessions`, ['--home', many, 'ls', '--harness', 'qwen'], { env: { FERRY_NO_CACHE: '1' } })
}
