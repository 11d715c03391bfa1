// Issue #41 on synthetic sessions of its shapes (test/fidelity/make-issue41.mjs), each source
// into every store target and read back: a Codex fork of a fork holds the inherited history
// first, in order, with the parent's ids; the earlier turns of an encrypted Codex compaction stay
// the live history with an honest note; failed calls (a non-zero exit OpenCode keeps
// `completed`, a Codex MCP call whose failure is only in its end event) are errors in every
// target; the words a person typed beside injected context (Cursor, Codex, Gemini) reach every
// target, and a Claude Code slash command's arguments too.
import t from 'tap'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { collect, context, open, pipeline, sink } from '../../lib/index.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { ferry, jsonl, tempDir } from '../kit.js'
// @ts-ignore plain JS fixture builder
import { makeHome, M, IDS } from './make-issue41.mjs'
import { TARGETS, at, convertIn, msgText, oneResultEach, readBack, resultOf, results, textOf, typed, type Rec } from './kit.js'

process.env.TZ = 'UTC'

const home = tempDir(t, 'ferry-issue41-')
const ids: Rec = makeHome(home)

const convert = (sid: string, to: string, out: string) => convertIn(home, sid, to, out)

function checkFork(t: Tap.Test, recs: Rec[], where: string): void {
  const order = ['p1', 'a1', 'p2', 'a2', 'fp1', 'fa1', 'gp1', 'ga1'].map((k) => at(recs, M[k]))
  t.ok(order.every((i) => i >= 0), `${where}: the inherited history and both forks' turns are there (${order.join(',')})`)
  t.ok(order.every((i, k) => k === 0 || i > order[k - 1]!), `${where}: in order: the parent's, the first fork's, the fork's own`)
  t.equal(typed(recs, M.p3).length + typed(recs, M.a3).length, 0, `${where}: the parent's turn after the fork point is not inherited`)
  const exit = resultOf(recs, (u) => JSON.stringify(u.input).includes('exit 7'))
  t.ok(exit?.length === 1 && exit[0].is_error === true, `${where}: the command that exited 7 is an error`)
  const mcp = resultOf(recs, (u) => /flaky/.test(u.name) || /flaky/.test(u.native_name ?? ''))
  t.ok(mcp?.length === 1 && mcp[0].is_error === true && textOf(mcp[0]).includes(M.mcpErr), `${where}: the failed MCP call is an error, with its message`)
  const p2 = typed(recs, M.p2)[0]
  t.ok(p2 && p2.blocks.some((b: Rec) => b.type === 'image' || (b.type === 'text' && /\[image/i.test(b.text))), `${where}: the prompt's image (or a placeholder naming it)`)
  oneResultEach(t, recs, where)
}

function checkEncrypted(t: Tap.Test, recs: Rec[], where: string): void {
  const note = recs.findIndex((r) => (r.kind === 'boundary' && /encrypted/i.test(r.summary ?? '')) || (r.kind === 'message' && /encrypted/i.test(msgText(r))))
  t.ok(note >= 0, `${where}: the compaction is stated honestly (its summary is encrypted)`)
  t.notOk(recs.some((r) => r.kind === 'boundary' && r.type === 'compaction' && r.replaces_history !== false), `${where}: no compaction record that would hide the earlier turns`)
  const ls = resultOf(recs, (u) => JSON.stringify(u.input).includes('"ls"'))
  t.ok(ls?.length === 1 && textOf(ls[0]).includes(M.lsOut), `${where}: the earlier tool call and its result`)
  const img = resultOf(recs, (u) => /view_image|Read|read/.test(u.name) || JSON.stringify(u.input).includes('f41.png'))
  t.ok(img?.length === 1 && (Array.isArray(img[0].content) ? img[0].content.some((p: Rec) => p.type === 'image') : /\[image/i.test(textOf(img[0]))), `${where}: the earlier tool's image (or a placeholder naming it)`)
  const before = ['ep1', 'ea1'].map((k) => at(recs, M[k]))
  const after = ['ep2', 'ea2'].map((k) => at(recs, M[k]))
  t.ok(before.every((i) => i >= 0 && i < note) && after.every((i) => i > note), `${where}: the turns before the note and after it, in order`)
  t.equal(typed(recs, M.ep1).length, 1, `${where}: the earlier prompt once (no replacement history repeated)`)
  oneResultEach(t, recs, where)
}

function checkExit(t: Tap.Test, recs: Rec[], where: string): void {
  const rs = results(recs).filter((r) => textOf(r).includes(M.exitOut))
  t.equal(rs.length, 2, `${where}: both runs' results`)
  t.equal(rs[0]?.is_error, true, `${where}: the run that exited 7 is an error`)
  t.notOk(rs[1]?.is_error, `${where}: the retry is not`)
  t.ok(at(recs, M.oc1) >= 0 && at(recs, M.ocA) > at(recs, M.oc1), `${where}: the prompt and the answer`)
  oneResultEach(t, recs, where)
}

function checkMixed(t: Tap.Test, recs: Rec[], where: string, words: string[]): void {
  for (const w of words) t.equal(typed(recs, w).length, 1, `${where}: the typed words "${w}" are a prompt, once`)
}

/**
 * Claude Code's slash commands are read as a call of the command (a `tool_use` in the user's
 * message, its output the result): a target without such a call writes the command as the text
 * the person typed (model.ts typedCommand), so its arguments are never dropped.
 */
function checkClaude(t: Tap.Test, recs: Rec[], where: string): void {
  const words = recs.filter((r) => r.kind === 'message' && !r.context && (msgText(r).includes(M.ccArgs) || r.blocks.some((b: Rec) => b.type === 'tool_use' && JSON.stringify(b.input).includes(M.ccArgs))))
  t.ok(words.length >= 1, `${where}: the arguments typed after the slash command are there`)
  const rs = results(recs).filter((r) => textOf(r).includes(M.exitOut))
  t.ok(rs.length === 2 && rs[0].is_error === true && !rs[1].is_error, `${where}: the run that exited 7 is an error, the retry is not`)
  t.ok(at(recs, M.ccA) >= 0, `${where}: the answer`)
}

const CASES: Array<[string, string, (t: Tap.Test, recs: Rec[], where: string) => void]> = [
  ['codex fork of a fork', `codex:${IDS.fork2}`, checkFork],
  ['codex encrypted compaction', `codex:${IDS.encrypted}`, checkEncrypted],
  ['opencode exit 7', `opencode:${ids.opencode}`, checkExit],
  ['cursor context + question', `cursor:${IDS.cursor}`, (t, r, w) => checkMixed(t, r, w, [M.cq1, M.cq2])],
  ['codex context + question', `codex:${IDS.mixed}`, (t, r, w) => checkMixed(t, r, w, [M.mixed])],
  ['gemini session context + question', `gemini:${IDS.gemini}`, (t, r, w) => checkMixed(t, r, w, [M.gq, M.ga])],
  ['claude-code command args + exit 7', `claude-code:${IDS.claude}`, checkClaude],
]

for (const [name, sid, check] of CASES) {
  t.test(name, async (t) => {
    t.test('read as it is', async (t) => check(t, (await collect(await open(sid, { ctx: context({ home }), native: false }))) as Rec[], `${name} (read)`))
    for (const to of TARGETS) t.test(`→ ${to}`, async (t) => check(t, await readBack(t, to, await convert(sid, to, tempDir(t))), `${name} → ${to}`))
  })
}

t.test('a Codex fork: the inherited records keep the parent\'s ids, a missing parent is a located warning', async (t) => {
  const parent = (await collect(await open(`codex:${IDS.parent}`, { ctx: context({ home }), native: false }))) as Rec[]
  const fork = (await collect(await open(`codex:${IDS.fork1}`, { ctx: context({ home }), native: false }))) as Rec[]
  const inherited = fork.filter((r) => r.kind === 'message' && r.id.startsWith(`codex:${IDS.parent}:`))
  const parentMsgs = parent.filter((r) => r.kind === 'message')
  t.ok(inherited.length > 0, 'the fork holds inherited messages')
  t.same(inherited.map((r) => r.id), parentMsgs.slice(0, inherited.length).map((r) => r.id), 'with the parent\'s ids, the parent\'s first records in order')
  t.ok(inherited.every((r) => r.sid === `codex:${IDS.fork1}`), 'inside the fork\'s session')
  t.same(inherited.map((r) => r.blocks), parentMsgs.slice(0, inherited.length).map((r) => r.blocks), 'with the parent\'s content')
  const header = fork.find((r) => r.kind === 'session')
  t.equal(header.parent?.sid, `codex:${IDS.parent}`, 'the header links the parent')

  const diagnostics = new Diagnostics({ stream: null })
  const orphan = (await collect(await open(`codex:${IDS.orphan}`, { ctx: context({ home, diagnostics }), native: false }))) as Rec[]
  t.ok(typed(orphan, M.op).length === 1 && typed(orphan, M.oa).length === 1, 'the orphan fork\'s own turn comes through')
  const w = diagnostics.items.find((d) => d.code === 'missing-parent')
  t.ok(w, 'a missing-parent warning')
  t.match(w?.position?.file ?? '', IDS.orphan, 'naming the fork\'s file')
  t.equal(w?.position?.line, 1, 'and its session_meta line')
  t.match(w?.message ?? '', IDS.gone, 'and the missing parent')
})

t.test('a Codex fork written back to Codex is self-contained (no history_base to inherit twice)', async (t) => {
  const out = tempDir(t)
  const ctx = context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const written: Rec[] = []
  const s = sink('codex' as never, { ctx, out })
  s.on('written', (w: Rec) => written.push(w))
  await pipeline(await open(`codex:${IDS.fork2}`, { ctx, native: true }), s)
  const lines = readFileSync(written[0].path, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  t.equal(lines[0].type, 'session_meta')
  t.notOk('history_base' in lines[0].payload, 'the written session_meta has no history_base')
  t.same(lines.map((l) => l.ordinal), lines.map((_, i) => i), 'ordinals contiguous from 0')
  const back = (await collect(await open(written[0].path, { ctx: context({ home: tempDir(t) }), native: false }))) as Rec[]
  checkFork(t, back, 'codex fork → codex (native)')
})

t.test('the archive: a fork reads whole after its parent is gone from the store (the archive kept the parent)', async (t) => {
  const h = tempDir(t)
  makeHome(h)
  const archive = async () => ferry(['--home', h, 'archive', '--harness', 'codex', '--json'])
  const first = await archive()
  t.equal(first.code, 0, first.stderr)
  const live = jsonl((await ferry(['--home', h, 'cat', `codex:${IDS.fork2}`, '--no-native'])).stdout)
  rmSync(join(h, '.codex', 'sessions', '2026', '11', '25', `rollout-2026-11-25T09-00-00-${IDS.parent}.jsonl`))
  rmSync(join(h, '.codex', 'sessions', '2026', '11', '25', `rollout-2026-11-25T09-10-00-${IDS.fork1}.jsonl`))
  const again = await archive()
  t.equal(again.code, 0, again.stderr)
  const cat = await ferry(['--home', h, 'cat', `codex:${IDS.fork2}`, '--archive', '--no-native'])
  t.equal(cat.code, 0, cat.stderr)
  const recs = jsonl(cat.stdout)
  checkFork(t, recs, 'archived fork of a fork, parents gone')
  const strip = (rs: Rec[]) => rs.filter((r) => r.kind === 'message').map((r) => [r.id, r.sid, r.blocks])
  t.same(strip(recs), strip(live), 'the same messages, ids and order as the live read before the parents went')
  const parent = jsonl((await ferry(['--home', h, 'cat', `codex:${IDS.parent}`, '--archive', '--no-native'])).stdout)
  t.ok(typed(parent, M.p3).length === 1 && parent.filter((r) => r.kind === 'message' && r.sid === `codex:${IDS.parent}`).every((r) => r.id.startsWith(`codex:${IDS.parent}:`)), 'the parent reads whole from the archive too, its own records only')
})
