// Pi: sessions generated here in Pi's own shape (docs/formats/pi.md: version-3 header, 8-hex entry ids
// chained by parentId, assistant messages with usage, one toolResult per call), cached under bench/out/.
//   - one 1 GiB session (64 MiB with --quick): `ferry cat --no-native` MB/s and peak RSS next to the
//     baseline loop on the same file (the two-pass tree reader: id table + active path, then the entries);
//   - 10,000 small sessions (1,000 with --quick): `ferry ls --harness pi` cold (FERRY_NO_CACHE=1) and warm.
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { createHash } from 'node:crypto'
import { join } from 'node:path'

export const name = 'pi'

const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit; sed do eiusmod tempor — 完了 → ✓ '
const CWD = '/home/dev/demo-app'
const DIR = '--home-dev-demo-app--'
const hex8 = (s) => createHash('sha256').update(s).digest('hex').slice(0, 8)
const usage = (i) => ({ input: 1200 + i, output: 80, cacheRead: 4000, cacheWrite: 0, totalTokens: 5280 + i, cost: { input: 0.0036, output: 0.0012, cacheRead: 0.0012, cacheWrite: 0, total: 0.006 } })

/** Writes one Pi session of about `bytes` (or `turns` turns) to `file`, entries as Pi writes them. */
async function session(file, n, { bytes = Infinity, turns = Infinity, outBytes = 4000 }) {
  const out = createWriteStream(file)
  const t0 = Date.parse('2026-08-03T09:00:00.000Z') + n * 3_600_000
  const id = `01${(t0).toString(16).padStart(10, '0').slice(-6)}-${hex8(`s${n}`).slice(0, 4)}-7${hex8(`t${n}`).slice(0, 3)}-8${hex8(`u${n}`).slice(0, 3)}-${hex8(`v${n}`)}${hex8(`w${n}`).slice(0, 4)}`
  let size = 0
  let t = t0
  let parent = null
  let k = 0
  const put = async (o) => {
    const line = JSON.stringify(o) + '\n'
    size += Buffer.byteLength(line)
    if (!out.write(line)) await once(out, 'drain')
  }
  const entry = async (type, fields) => {
    const eid = hex8(`${n}:${k++}`)
    t += 250
    await put({ type, id: eid, parentId: parent, timestamp: new Date(t).toISOString(), ...fields })
    parent = eid
  }
  await put({ type: 'session', version: 3, id, timestamp: new Date(t0).toISOString(), cwd: CWD })
  await entry('model_change', { provider: 'anthropic', modelId: 'claude-sonnet-4-5' })
  await entry('thinking_level_change', { thinkingLevel: 'medium' })
  for (let i = 0; size < bytes && i < turns; i++) {
    await entry('message', { message: { role: 'user', content: [{ type: 'text', text: `Step ${i}: please run the next check. ` + LOREM.repeat(3) }], timestamp: t } })
    const call = `toolu_01${hex8(`c${n}:${i}`)}${hex8(`d${n}:${i}`)}`
    await entry('message', { message: { role: 'assistant', content: [{ type: 'thinking', thinking: `Step ${i}: ` + LOREM.repeat(4), thinkingSignature: 'Eq' + hex8(`g${i}`).repeat(20) }, { type: 'text', text: `Running step ${i}.` }, { type: 'toolCall', id: call, name: 'bash', arguments: { command: `make step-${i}` } }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: usage(i), stopReason: 'toolUse', timestamp: t, responseId: `msg_01${hex8(`r${i}`)}` } })
    const text = `${i}: ${LOREM.repeat(Math.ceil(outBytes / LOREM.length))}`.slice(0, outBytes)
    await entry('message', { message: { role: 'toolResult', toolCallId: call, toolName: 'bash', content: [{ type: 'text', text }], isError: false, timestamp: t } })
    await entry('message', { message: { role: 'assistant', content: [{ type: 'text', text: `Step ${i} passed. ` + LOREM }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: usage(i), stopReason: 'stop', timestamp: t, responseId: `msg_02${hex8(`r${i}`)}` } })
  }
  out.end()
  await once(out, 'close')
  return { id, name: `${new Date(t0).toISOString().replace(/[:.]/g, '-')}_${id}.jsonl` }
}

/** A store generated once and cached (renamed into place only when complete). */
async function store(b, key, make) {
  const home = join(b.outDir, key)
  if (existsSync(home)) return home
  const tmp = `${home}.building`
  rmSync(tmp, { recursive: true, force: true })
  const dir = join(tmp, '.pi', 'agent', 'sessions', DIR)
  mkdirSync(dir, { recursive: true })
  await make(dir)
  renameSync(tmp, home)
  return home
}

export default async function (b) {
  const size = b.quick ? 64 * 2 ** 20 : 2 ** 30
  const label = b.quick ? '64M' : '1G'
  const big = await store(b, `pi-big-${label}`, async (dir) => {
    const s = await session(join(dir, 'tmp.jsonl'), 0, { bytes: size, outBytes: 16_000 })
    renameSync(join(dir, 'tmp.jsonl'), join(dir, s.name))
  })
  const file = b.findFiles(join(big, '.pi'), /\.jsonl$/)[0]
  const bytes = b.size(file)
  await b.baseline(`pi ${label}`, file)
  const cat = await b.ferry(`pi ${label} → ferry cat --no-native`, ['--home', big, 'cat', file, '--no-native'], { bytes })
  b.ratio(`pi ${label} → ferry cat --no-native`, cat.vsBaseline, 'MB/s vs the loop on the same file', { rss: cat.rssVsBaseline })

  const n = b.quick ? 1000 : 10_000
  const many = await store(b, `pi-sessions-${n}`, async (dir) => {
    for (let i = 0; i < n; i++) {
      const s = await session(join(dir, 'tmp.jsonl'), i, { turns: 4, outBytes: 2000 })
      renameSync(join(dir, 'tmp.jsonl'), join(dir, s.name))
    }
  })
  // A real HOME has a cache folder: ferry keeps its discovery cache there.
  mkdirSync(join(many, '.cache'), { recursive: true })
  rmSync(join(many, '.cache', 'ferry'), { recursive: true, force: true })
  const cold = await b.ferry(`pi ls, no cache (FERRY_NO_CACHE=1): ${n} sessions`, ['--home', many, 'ls', '--harness', 'pi'], { env: { FERRY_NO_CACHE: '1' }, note: 'cold' })
  b.ratio(`pi: ferry ls ${n} sessions, no cache`, 1 / cold.seconds, 'target seconds (1 s) / seconds taken (no floor: the first listing)')
  await b.ferry(`pi ls (cache filled): ${n} sessions`, ['--home', many, 'ls', '--harness', 'pi'], { note: 'fills the discovery cache' })
  const warm = await b.ferry(`pi ls: ${n} sessions`, ['--home', many, 'ls', '--harness', 'pi'], { note: 'discovery cache warm' })
  b.ratio(`pi: ferry ls ${n} sessions`, 1 / warm.seconds, 'target seconds (1 s) / seconds taken')
}
