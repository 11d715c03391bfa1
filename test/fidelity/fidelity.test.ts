// Conversion fidelity on long sessions (issue #13): every source × target
// pair on synthetic sessions shaped like the genuine ones
// (fixtures/fidelity/make-fixtures.mjs): two tool calls of one response and
// their results, an image a tool returned, a sub-agent's answer, and a
// compaction with the turns before it. Real child processes: `ferry convert`
// writes, `ferry cat` reads back what was written (OpenCode's export document
// is first imported the way `opencode import` does).
import t from 'tap'
import { collect, context, open } from '../../lib/index.js'
import { ferry, fileTimeout, jsonl, tempDir } from '../kit.js'
import { TARGETS, convertIn, msgText, readAllBack, textOf, type Rec } from './kit.js'
// @ts-ignore plain JS fixture builder
import { makeHome, MARK, png8x8 } from '../../fixtures/fidelity/make-fixtures.mjs'

process.env.TZ = 'UTC'
fileTimeout(t, 10 * 60_000)

const SOURCES = ['claude-code', 'codex', 'opencode'] as const
/** Targets whose stored tool results are text only (docs/formats/cursor.md, copilot.md): the image becomes a placeholder. */
const TEXT_ONLY_RESULTS = new Set(['cursor', 'copilot', 'qwen'])
/** Targets with no compaction record ferry can write: the summary is a visible context message instead. */
// ZCode has a compaction part, but its resume starts the model context at it: ferry writes the
// summary as ZCode's own compact-summary message instead (docs/formats/zcode.md).
const NO_COMPACTION_RECORD = new Set(['grok', 'cursor', 'zcode', 'gemini', 'qwen'])
const PNG: string = png8x8()

const home = tempDir(t, 'ferry-fidelity-')
const ids: Rec = makeHome(home)

const convert = (sid: string, to: string, out: string): Promise<Rec[]> => convertIn(home, sid, to, out)
const readBack = readAllBack

function mainOf(recs: Rec[]): { header: Rec; recs: Rec[] } {
  const header = recs.find((r) => r.kind === 'session' && !r.parent) ?? recs.find((r) => r.kind === 'session')!
  return { header, recs: recs.filter((r) => r.sid === header.sid) }
}

function checkPair(t: Tap.Test, from: string, to: string, all: Rec[]): void {
  const { header, recs } = mainOf(all)
  const at = `${from} → ${to}`
  const msgs = recs.filter((r) => r.kind === 'message')
  const pos = (pred: (r: Rec) => boolean) => recs.findIndex(pred)
  const has = (m: Rec, s: string) => msgText(m).includes(s)

  // Parallel calls: both calls, each answered by its own result, before the model speaks again.
  const uses = msgs.flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_use').map((b: Rec) => ({ m, b })))
  const results = msgs.flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_result').map((b: Rec) => ({ m, b })))
  const afterA1 = pos((r) => r.kind === 'message' && r.role === 'assistant' && has(r, MARK.a1))
  t.ok(afterA1 >= 0, `${at}: the answer after the parallel calls`)
  for (const [k, cmd] of MARK.par.entries()) {
    const u = uses.find((x) => JSON.stringify(x.b.input).includes(cmd))
    t.ok(u, `${at}: parallel call ${k + 1} present`)
    if (!u) continue
    const r = results.find((x) => x.b.tool_use_id === u.b.id)
    t.ok(r, `${at}: parallel call ${k + 1} answered by its own result`)
    if (!r) continue
    t.match(textOf(r.b), MARK.out[k], `${at}: result ${k + 1} holds its output`)
    t.ok(recs.indexOf(r.m) > recs.indexOf(u.m) && recs.indexOf(r.m) < afterA1, `${at}: result ${k + 1} comes after the calls and before the next answer`)
  }
  const calls = MARK.par.map((cmd: string) => uses.find((x) => JSON.stringify(x.b.input).includes(cmd)))
  if (calls[0] && calls[1]) {
    const lastCall = Math.max(recs.indexOf(calls[0].m), recs.indexOf(calls[1].m))
    const firstResult = Math.min(...results.filter((x) => calls.some((c: Rec) => c.b.id === x.b.tool_use_id)).map((x) => recs.indexOf(x.m)))
    t.ok(lastCall < firstResult, `${at}: both calls are issued before either result (one response)`)
  }

  // The image a tool returned: inside a tool result, or a visible placeholder.
  const image = results.find((x) => Array.isArray(x.b.content) && x.b.content.some((p: Rec) => p.type === 'image' && p.data === PNG))
  const placeholder = results.find((x) => /\[image/i.test(textOf(x.b)))
  t.ok(image || placeholder, `${at}: the tool's image is there (or a placeholder says so)`)
  if (!TEXT_ONLY_RESULTS.has(to)) t.ok(image, `${at}: ${to} holds the image inside the tool result`)
  else t.ok(placeholder, `${at}: ${to} keeps text results only, so a placeholder names the image`)

  // The sub-agent's answer, linked to the call that started the sub-agent.
  const answer = results.find((x) => textOf(x.b).includes(MARK.subAnswer))
  const answerMsg = msgs.find((m) => m.blocks.some((b: Rec) => b.type === 'text' && b.text.includes(MARK.subAnswer)))
  t.ok(answer || answerMsg, `${at}: the sub-agent's answer is in the conversation`)
  if (from === 'codex') {
    // Codex multi-agent: the answer arrives as a message after spawn_agent/wait_agent.
    const spawn = uses.find((x) => /spawn_agent|agent/i.test(x.b.name) || /ferry_probe/.test(JSON.stringify(x.b.input)))
    t.ok(spawn, `${at}: the spawn call is there`)
    if (spawn && answerMsg) t.ok(recs.indexOf(answerMsg) > recs.indexOf(spawn.m), `${at}: the answer follows the spawn call`)
  } else {
    t.ok(answer, `${at}: the answer is the result of the sub-agent call`)
    const call = answer && uses.find((x) => x.b.id === answer.b.tool_use_id)
    t.ok(call && JSON.stringify(call.b.input).includes(MARK.subPrompt), `${at}: that result answers the call that carried the sub-agent's prompt`)
    // OpenCode names a sub-agent's session in its parent's `task` part, written before the child
    // arrives: only Claude Code's layout (a side file per sub-agent) carries the link from another agent.
    if (to === 'claude-code' || (to === 'opencode' && from === 'opencode')) {
      const child = all.find((r) => r.kind === 'session' && r.parent?.kind === 'subagent')
      t.ok(child, `${at}: the sub-agent's own session is written`)
      if (child && call) t.equal(child.parent.tool_use_id, call.b.id, `${at}: the sub-agent session is linked to its call`)
    }
  }

  // Compaction: the summary is there, after the turns before it and before the turn after it.
  const boundary = pos((r) => r.kind === 'boundary' && r.type === 'compaction')
  const summaryAt = pos((r) => (r.kind === 'boundary' && (r.summary ?? '').includes('FERRY-SUMMARY')) || (r.kind === 'message' && has(r, 'FERRY-SUMMARY')))
  t.ok(summaryAt >= 0, `${at}: the compaction summary is present`)
  if (!NO_COMPACTION_RECORD.has(to)) t.ok(boundary >= 0, `${at}: ${to} got its own compaction record`)
  const mark = boundary >= 0 ? boundary : summaryAt
  for (const k of ['p1', 'p2', 'p3', 'a1', 'a2', 'a3'] as const) {
    const i = pos((r) => r.kind === 'message' && !r.context && has(r, MARK[k]))
    t.ok(i >= 0 && i < mark, `${at}: pre-compaction ${k} kept, before the boundary`)
  }
  for (const k of ['p4', 'a4'] as const) {
    const i = pos((r) => r.kind === 'message' && !r.context && has(r, MARK[k]))
    t.ok(i > mark, `${at}: ${k} after the boundary`)
  }
  t.ok(header, `${at}: a session header`)
}

/**
 * Pairs with a known, reported gap (issue notes): the harnesses landed while this matrix was
 * written. Their assertions still run and are reported as todo, so a fix shows up at once.
 */
const KNOWN_GAPS: Record<string, string> = {
}
const gap = (key: string) => (KNOWN_GAPS[key] ? { todo: KNOWN_GAPS[key] } : {})

for (const from of SOURCES) {
  t.test(`${from} source`, async (t) => {
    const sid = `${from}:${ids[from]}`
    t.test(`${from} read as it is`, async (t) => checkPair(t, from, '(read)', (await collect(await open(sid, { ctx: context({ home }), native: false }))) as Rec[]))
    for (const to of TARGETS) {
      t.test(`${from} → ${to}`, gap(`${from}→${to}`), async (t) => {
        const written = await convert(sid, to, tempDir(t))
        t.ok(written.length >= 1, 'something was written')
        checkPair(t, from, to, await readBack(t, to, written))
      })
    }
  })
}

// The same through the CLI, as a user runs it (real child processes), for one pair.
t.test('ferry convert on the command line: Codex (parallel calls, multi-agent, compaction) into Claude Code', async (t) => {
  const out = tempDir(t)
  const w = await ferry(['--home', home, 'convert', `codex:${ids.codex}`, '--to', 'claude-code', '--out', out, '--json'])
  t.equal(w.code, 0, w.stderr)
  const [written] = jsonl(w.stdout)
  const back = await ferry(['cat', written.path, '--no-native'])
  t.equal(back.code, 0, back.stderr)
  checkPair(t, 'codex', 'claude-code', jsonl(back.stdout))
})

// Codex's remote compaction keeps its summary encrypted: the target says so in words.
t.test('a Codex remote (encrypted) compaction leaves a visible note in every other agent', async (t) => {
  const sid = `codex:${ids.codexRemote}`
  for (const to of TARGETS.filter((x) => x !== 'codex')) await t.test(`codex (remote compaction) → ${to}`, gap(`remote→${to}`), async (t) => {
    const { recs } = mainOf(await readBack(t, to, await convert(sid, to, tempDir(t))))
    const note = recs.find((r) => (r.kind === 'boundary' && /summary .*encrypted/i.test(r.summary ?? '')) || (r.kind === 'message' && /summary .*encrypted/i.test(msgText(r))))
    t.ok(note, `codex → ${to}: the compaction is not silent`)
    const p1 = recs.findIndex((r) => r.kind === 'message' && !r.context && msgText(r).includes(MARK.p1))
    const p4 = recs.findIndex((r) => r.kind === 'message' && !r.context && msgText(r).includes(MARK.p4))
    t.ok(p1 >= 0 && p1 < recs.indexOf(note) && recs.indexOf(note) < p4, `codex → ${to}: turns before and after the compaction, in order`)
    t.equal(recs.filter((r) => r.kind === 'message' && !r.context && msgText(r).includes(MARK.p1)).length, 1, `codex → ${to}: the prompt Codex carried over is not repeated`)
  })
})

// Claude Code 2.1.332's `/compact` keeps the last answer (compactMetadata.preservedSegment /
// preservedMessages, anchored at the summary): the client loads it after the summary, so every
// target holds it after the boundary, once, with the dropped turns before the boundary.
t.test('a Claude Code compaction that keeps the last answer: after the summary in every target', async (t) => {
  const sid = `claude-code:${ids.claudeKept}`
  const check = (t: Tap.Test, to: string, all: Rec[]) => {
    const { recs } = mainOf(all)
    const at = `claude-code (kept answer) → ${to}`
    const text = (k: string) => recs.filter((r) => r.kind === 'message' && !r.context && msgText(r).includes(MARK[k]))
    const pos = (k: string) => recs.indexOf(text(k)[0])
    const boundary = recs.findIndex((r) => r.kind === 'boundary' && r.type === 'compaction')
    const summaryAt = recs.findIndex((r) => (r.kind === 'boundary' && (r.summary ?? '').includes('FERRY-SUMMARY')) || (r.kind === 'message' && msgText(r).includes('FERRY-SUMMARY')))
    t.ok(summaryAt >= 0, `${at}: the summary is there`)
    if (!NO_COMPACTION_RECORD.has(to)) t.ok(boundary >= 0, `${at}: a compaction record`)
    const mark = boundary >= 0 ? boundary : summaryAt
    for (const k of ['p1', 'a1', 'p2']) t.ok(pos(k) >= 0 && pos(k) < mark, `${at}: ${k} before the boundary`)
    t.ok(pos('a2') > Math.max(mark, summaryAt), `${at}: the kept answer comes after the summary`)
    t.ok(pos('a2') < pos('p4'), `${at}: the kept answer comes before the next prompt`)
    t.equal(text('a2').length, 1, `${at}: the kept answer once`)
    for (const k of ['p4', 'a4']) t.ok(pos(k) > pos('a2'), `${at}: ${k} after the kept answer`)
  }
  t.test('read as it is', async (t) => check(t, '(read)', (await collect(await open(sid, { ctx: context({ home }), native: false }))) as Rec[]))
  for (const to of TARGETS) {
    t.test(`claude-code (kept answer) → ${to}`, gap(`kept→${to}`), async (t) => check(t, to, await readBack(t, to, await convert(sid, to, tempDir(t)))))
  }
})
