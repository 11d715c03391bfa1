// Issue #41, the shapes the real-client scenario (conformance/scenario41.sh) found, on synthetic sessions
// (test/fidelity/make-issue41.mjs) into every store target: a Codex 0.171 prompt with an attached image is one
// prompt with one image (its turn item pairs with the response item despite Codex's image label parts); an
// MCP call whose failure is only in its `McpToolCall` turn item is an error; an image a source kept only by
// its local path never becomes a `file:` URL OpenCode's resume refuses; the todo/plan step of each source (Claude
// Code's TaskCreate and TodoWrite after a stream-json image prompt, Codex's update_plan, OpenCode's todowrite).
// FULL_ONLY (test/run.mjs), as issue41.test.ts.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { collect, context, open } from '../../lib/index.js'
import { tempDir } from '../kit.js'
// @ts-ignore plain JS fixture builder
import { makeHome, M, IDS } from './make-issue41.mjs'
import { TARGETS, at, convertIn, oneResultEach, readBack, results, textOf, typed, uses, type Rec } from './kit.js'

process.env.TZ = 'UTC'

const home = tempDir(t, 'ferry-issue41s-')
const refs = makeHome(home)
const convert = (sid: string, to: string, out: string) => convertIn(home, sid, to, out)

/**
 * Codex 0.171: a prompt with an attached image (`exec -i`): one prompt, its image once, never a second copy
 * pointing at a local path; an MCP call failed only in its `McpToolCall` turn item is an error, its retry not.
 */
function checkCodex171(t: Tap.Test, recs: Rec[], where: string): void {
  const p = typed(recs, M.ip)
  t.equal(p.length, 1, `${where}: the prompt once`)
  // an image block, or a placeholder naming one (Codex's own label part, `<image name=[Image #1] …>`, is none)
  const blocks = recs.filter((r) => r.kind === 'message').flatMap((m) => m.blocks)
  const imgs = blocks.filter((b: Rec) => b.type === 'image').length + blocks.map((b: Rec) => (b.type === 'text' ? (b.text.match(/\[image(?! #\d)/gi) ?? []).length : 0)).reduce((a: number, n: number) => a + n, 0)
  t.equal(imgs, 1, `${where}: its image once`)
  t.ok(at(recs, M.ia) > at(recs, M.ip), `${where}: then the answer`)
  const rs = results(recs).filter((r) => textOf(r).includes('F41-MCP171-'))
  t.ok(rs.length === 2 && rs[0].is_error === true && textOf(rs[0]).includes(M.mcp171Err), `${where}: the failed MCP call is an error, with its message`)
  t.notOk(rs[1]?.is_error, `${where}: the retry is not`)
  oneResultEach(t, recs, where)
}

t.test('codex 0.171 image prompt + MCP call failed in its turn item', async (t) => {
  const sid = `codex:${IDS.imgprompt}`
  const name = 'codex 0.171'
  t.test('read as it is', async (t) => checkCodex171(t, (await collect(await open(sid, { ctx: context({ home }), native: false }))) as Rec[], `${name} (read)`))
  for (const to of TARGETS) t.test(`→ ${to}`, async (t) => checkCodex171(t, await readBack(t, to, await convert(sid, to, tempDir(t))), `${name} → ${to}`))
})

t.test('an image a source kept only by its local path is no file: URL in an OpenCode-family document (OpenCode could not resume it)', async (t) => {
  for (const to of ['opencode', 'kilo']) {
    const written = await convert(`codex:${IDS.localimg}`, to, tempDir(t))
    const doc = JSON.parse(readFileSync(written[0].path, 'utf8'))
    const parts = doc.messages.flatMap((m: Rec) => m.parts)
    t.notOk(parts.some((p: Rec) => typeof p.url === 'string' && p.url.startsWith('file:')), `${to}: no file: URL`)
    t.ok(parts.some((p: Rec) => p.type === 'text' && p.text.includes('f41-local.png')), `${to}: a note naming the image's path`)
    t.ok(parts.some((p: Rec) => p.type === 'text' && p.text === M.lp), `${to}: the prompt's words`)
  }
})

/**
 * The todo/plan step of the scenario (Claude Code's TaskCreate and TodoWrite, Codex's update_plan, OpenCode's
 * todowrite), after a prompt whose image came with it (Claude Code's stream-json image block, Codex's `-i`):
 * the prompt once, its image once, the plan call carrying the item's text and answered once, then the answer.
 */
function checkPlan(t: Tap.Test, recs: Rec[], where: string, image: boolean): void {
  const p = typed(recs, M.todoP)
  t.equal(p.length, 1, `${where}: the prompt once`)
  if (image) {
    const blocks = recs.filter((r) => r.kind === 'message').flatMap((m) => m.blocks)
    const imgs = blocks.filter((b: Rec) => b.type === 'image').length + blocks.map((b: Rec) => (b.type === 'text' ? (b.text.match(/\[image(?! #\d)/gi) ?? []).length : 0)).reduce((a: number, n: number) => a + n, 0)
    t.equal(imgs, 1, `${where}: its image once`)
  }
  const plan = uses(recs).filter((u) => JSON.stringify(u.input).includes(M.todo))
  t.ok(plan.length >= 1, `${where}: the plan call with its item (${uses(recs).map((u) => u.name).join(', ')})`)
  for (const u of plan) t.equal(results(recs).filter((r) => r.tool_use_id === u.id).length, 1, `${where}: ${u.name} answered once`)
  t.ok(at(recs, M.todoA) > at(recs, M.todoP), `${where}: then the answer`)
  oneResultEach(t, recs, where)
}

t.test('the todo/plan tool after a prompt with its image, from each source into every target', async (t) => {
  const sources: Array<[string, string, boolean]> = [
    [`claude-code:${IDS.claudePlan}`, 'claude-code TaskCreate/TodoWrite', true],
    [`codex:${IDS.codexPlan}`, 'codex update_plan', true],
    [`opencode:${refs.opencode}`, 'opencode todowrite', false],
  ]
  for (const [sid, name, image] of sources) {
    t.test(`${name}: read as it is`, async (t) => checkPlan(t, (await collect(await open(sid, { ctx: context({ home }), native: false }))) as Rec[], `${name} (read)`, image))
    for (const to of TARGETS) {
      t.test(`${name} → ${to}`, async (t) => checkPlan(t, await readBack(t, to, await convert(sid, to, tempDir(t))), `${name} → ${to}`, image))
    }
  }
})
