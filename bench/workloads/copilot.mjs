// Copilot CLI (issue #39): a generated store under bench/out/ (cached), shaped like the logs 1.0.102
// writes (the envelope, a linear parentId chain, usage records before each response, tool start and
// complete events, a sync sub-agent interleaved by agentId):
//   - one event log of ≥ 1 GiB (16 MiB with --quick): `ferry cat` MB/s and peak RSS next to the
//     baseline loop (split2 + JSON.parse + JSON.stringify) over the same file;
//   - 10,000 small sessions (1,000 with --quick): `ferry ls --harness copilot` cold (FERRY_NO_CACHE=1)
//     and warm (the discovery cache), seconds.
// No floor yet: the figures go to docs/performance.md when the lead merges.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'copilot'

const CWD = '/home/dev/demo-app'
const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit; '
const id = (a, b) => `${a.toString(16).padStart(8, '0')}-0000-4000-8000-${b.toString(16).padStart(12, '0')}`

/** The events of one session, given to `put` line by line until `bytes` are written (at least one turn). */
function events(i, bytes, put) {
  const sid = id(i, 0)
  let n = 0
  let last = null
  let ms = 1_795_000_000_000 + i * 3_600_000
  let written = 0
  const ev = (type, data, agentId) => {
    const e = { type, data }
    if (agentId) e.agentId = agentId
    e.id = id(i, ++n)
    e.timestamp = new Date((ms += 40)).toISOString()
    e.parentId = last
    last = e.id
    const line = JSON.stringify(e) + '\n'
    written += Buffer.byteLength(line)
    put(line)
  }
  ev('session.start', { sessionId: sid, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', startTime: new Date(ms).toISOString(), selectedModel: 'claude-sonnet-4.5', context: { cwd: CWD } })
  ev('user.message', { content: `Please look at the build (session ${i}). ${LOREM.repeat(4)}`, interactionId: id(i, 1e9) })
  ev('system.message', { role: 'system', content: `You are the GitHub Copilot CLI. ${LOREM.repeat(40)}` })
  for (let s = 0; written < bytes || s === 0; s++) {
    const call = `toolu_bench${String(s).padStart(8, '0')}`
    const api = `msg_bench${i}_${s}`
    ev('assistant.turn_start', { turnId: String(s) })
    ev('session.usage_record', { usage: { model: 'claude-sonnet-4.5', inputTokens: 12000 + s, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, apiCallId: api } })
    ev('assistant.message', { messageId: id(i, 2e9 + s), model: 'claude-sonnet-4.5', content: `Step ${s}: ${LOREM.repeat(3)}`, toolRequests: [{ toolCallId: call, name: s % 7 === 3 ? 'task' : 'bash', arguments: { command: `make step-${s}`, description: 'Run a step' }, type: 'function' }], reasoningText: `Thinking about step ${s}. ${LOREM.repeat(2)}`, reasoningOpaque: 'c2lnbmF0dXJl', apiCallId: api })
    ev('tool.execution_start', { toolCallId: call, toolName: 'bash', arguments: { command: `make step-${s}` } })
    if (s % 7 === 3) {
      const agent = id(i, 3e9 + s)
      ev('subagent.started', { toolCallId: call, agentName: 'general-purpose', agentDisplayName: 'helper', agentDescription: 'A helper', model: 'claude-sonnet-4.5', agentType: 'general-purpose', executionMode: 'sync' }, agent)
      ev('user.message', { content: `Sub-task of step ${s}.` }, agent)
      ev('assistant.message', { messageId: id(i, 4e9 + s), content: `Sub-agent answer for step ${s}. ${LOREM}`, toolRequests: [], parentToolCallId: call }, agent)
      ev('subagent.completed', { toolCallId: call, agentName: 'general-purpose', agentDisplayName: 'helper' }, agent)
    }
    ev('tool.execution_complete', { toolCallId: call, success: true, result: { content: `${s}: ${LOREM.repeat(30)}` }, shellExecution: { exitCode: 0 } })
    ev('assistant.turn_end', { turnId: String(s) })
  }
  ev('assistant.message', { messageId: id(i, 5e9), content: 'All done.', toolRequests: [] })
  return sid
}

/** Writes sessions into `<home>/.copilot/session-state/` (built under a temp name; kept between runs). */
function generate(home, sessions, bytesEach) {
  if (existsSync(home)) return
  const tmp = `${home}.building`
  rmSync(tmp, { recursive: true, force: true })
  for (let i = 0; i < sessions; i++) {
    const dir = join(tmp, '.copilot', 'session-state', id(i, 0))
    mkdirSync(dir, { recursive: true })
    const fd = openSync(join(dir, 'events.jsonl'), 'w')
    let buf = ''
    events(i, bytesEach, (line) => {
      buf += line
      if (buf.length > 4 * 1024 * 1024) {
        writeSync(fd, buf)
        buf = ''
      }
    })
    writeSync(fd, buf)
    closeSync(fd)
  }
  renameSync(tmp, home)
}

export default async function (b) {
  const bigBytes = b.quick ? 16 * 1024 * 1024 : 1024 * 1024 * 1024
  const big = join(b.outDir, 'data', `copilot-big-${bigBytes}`)
  generate(big, 1, bigBytes)
  const file = join(big, '.copilot', 'session-state', id(0, 0), 'events.jsonl')
  const bytes = statSync(file).size
  const label = `one Copilot event log, ${(bytes / 2 ** 30).toFixed(2)} GiB`
  await b.baseline(label, file)
  const cat = await b.ferry(`ferry cat copilot:ID > /dev/null: ${label}`, ['--home', big, 'cat', `copilot:${id(0, 0)}`], { bytes })
  b.report('copilot cat vs the loop', `${cat.vsBaseline?.toFixed(2)}× the loop's MB/s, ${cat.rssVsBaseline?.toFixed(2)}× its peak RSS`)

  const n = b.quick ? 1000 : 10000
  const many = join(b.outDir, 'data', `copilot-sessions-${n}`)
  generate(many, n, 4096)
  mkdirSync(join(many, '.cache'), { recursive: true })
  const label2 = `${n} Copilot sessions`
  rmSync(join(many, '.cache', 'ferry'), { recursive: true, force: true })
  await b.ferry(`ferry ls --harness copilot, no cache (FERRY_NO_CACHE=1): ${label2}`, ['--home', many, 'ls', '--harness', 'copilot'], { env: { FERRY_NO_CACHE: '1' }, note: 'cold' })
  await b.ferry(`ferry ls --harness copilot (fills the discovery cache): ${label2}`, ['--home', many, 'ls', '--harness', 'copilot'])
  const warm = await b.ferry(`ferry ls --harness copilot: ${label2}`, ['--home', many, 'ls', '--harness', 'copilot'], { note: 'discovery cache warm' })
  b.ratio('copilot: ferry ls, 10,000 sessions', 1 / warm.seconds, 'target seconds (1 s) / seconds taken (no floor yet)')
}
