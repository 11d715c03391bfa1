// The Codex harness through the real CLI (child processes): the line cap and the write flags.
import t from 'tap'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURE, FIXTURES, ferry, jsonl, kit, rollouts, tempDir, zstd } from '../../kit.js'

const { classic: CLASSIC_ID } = FIXTURE.codex
const cx = kit('codex')

/** The records of a `cat` stream, without its `stream` preamble. */
const records = (out: string) => jsonl(out).filter((x) => x.kind !== 'stream')

/** The classic fixture with a 5 KB assistant message inserted as line 11. */
function homeWithLongLine(t: Parameters<typeof tempDir>[0]): { home: string; file: string } {
  const home = cx.home(t, 'classic')
  const file = rollouts(join(home, '.codex', 'sessions'))[0]!
  const lines = readFileSync(file, 'utf8').split('\n')
  const long = JSON.stringify({
    timestamp: '2026-11-02T09:15:03.500Z',
    type: 'response_item',
    payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x'.repeat(5000) }] },
  })
  lines.splice(10, 0, long)
  writeFileSync(file, lines.join('\n'))
  return { home, file }
}

t.test('--max-line-bytes: an over-long rollout line is reported with file:line, exit 1, the rest is read', async (t) => {
  const { home, file } = homeWithLongLine(t)
  const whole = await ferry(['--home', home, 'cat', `codex:${CLASSIC_ID}`, '--no-native'])
  t.equal(whole.code, 0, 'under the default cap the line reads fine')

  for (const compressed of [false, true]) {
    const path = compressed ? zstd(file, false) : file
    const label = compressed ? '.jsonl.zst' : '.jsonl'
    const r = await ferry(['--home', home, 'cat', `codex:${CLASSIC_ID}`, '--no-native', '--max-line-bytes', '1000'])
    t.equal(r.code, 1, `${label}: exit 1`)
    t.match(r.stderr, `codex:line-too-long: ${path}:11: `, `${label}: code, file and line on stderr`)
    const recs = records(r.stdout)
    t.equal(recs[0].kind, 'session', `${label}: header first`)
    t.equal(recs.at(-1).kind, 'end', `${label}: end last`)
    t.equal(recs.at(-1).counts.skipped_lines, 1, `${label}: the line is counted as skipped`)
    const before = records(whole.stdout).filter((x) => !(x.kind === 'message' && x.blocks?.[0]?.text?.length === 5000))
    t.same(recs.map((x) => x.id).slice(0, -1), before.map((x) => x.id).slice(0, -1), `${label}: every other record, in order`)
  }
})

t.test('write flags: --codex-provider/--codex-model and the older --provider/--model', async (t) => {
  const src = 'claude-code:0b9e6c1a'
  const home = join(FIXTURES, 'home')
  for (const flags of [['--codex-provider', 'azure', '--codex-model', 'o9'], ['--provider', 'azure', '--model', 'o9']]) {
    const out = tempDir(t)
    const r = await ferry(['--home', home, 'convert', src, '--to', 'codex', '--out', out, '--json', ...flags])
    t.equal(r.code, 0, `${flags[0]}: ${r.stderr}`)
    const [w] = jsonl(r.stdout)
    const lines = jsonl(readFileSync(w.path, 'utf8'))
    t.equal(lines[0].payload.model_provider, 'azure', `${flags[0]}: provider recorded`)
    t.equal(lines.find((l) => l.type === 'turn_context').payload.model, 'o9', `${flags[2]}: model recorded`)
    rmSync(out, { recursive: true, force: true })
  }
})
