// Every sample session converted into every other writable harness, then
// read back by ferry: the conversation must survive (user prompts, tool
// calls each answered by a result, the final answer), whatever the pair.
// Sources and targets come from the registry: a new harness joins the
// matrix by being registered (and having a session in the sample home).
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { listable, readable, writable } from '../../lib/harness/registry.js'
import { ferry, fileTimeout, FIXTURES, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')
/** Harnesses with a store ferry can list and read: each has one sample session in HOME. */
const SOURCES = readable().filter((h) => listable().includes(h)).map((h) => h.id)
const TARGETS = writable().map((h) => h.id)

// Five sources into five targets, each through real child processes.
fileTimeout(t, 20 * 60_000)

type Rec = Record<string, any>

function conversation(recs: Rec[]) {
  const msgs = recs.filter((r) => r.kind === 'message' && !r.context && r.role !== 'system')
  const text = (role: string) =>
    msgs
      .filter((m) => m.role === role)
      .flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'text').map((b: Rec) => b.text.replace(/^\[thinking\][\s\S]*$/, '').trim()))
      .filter(Boolean)
  const uses = msgs.flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_use'))
  const results = msgs.flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_result'))
  return { user: text('user'), assistant: text('assistant'), uses, results }
}

/** A JSON export document (`{info, messages: [{info, parts}]}`) that the agent itself imports; null when the file is not one. */
function importDocument(path: string): Rec | null {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8'))
    return doc && Array.isArray(doc.messages) && doc.messages.every((m: Rec) => Array.isArray(m.parts)) ? doc : null
  } catch {
    return null
  }
}

t.test('the registry gives the matrix its sources and targets', async (t) => {
  t.ok(SOURCES.length >= 4, `sources: ${SOURCES.join(', ')}`)
  t.ok(TARGETS.length >= SOURCES.length, `targets: ${TARGETS.join(', ')}`)
})

t.test('every sample session survives conversion into every other harness', async (t) => {
  const ls = await ferry(['--home', HOME, 'ls', '--json'])
  t.equal(ls.code, 0, ls.stderr)
  const sessions = jsonl(ls.stdout)
  t.same(new Set(sessions.map((s) => s.harness)), new Set(SOURCES), 'one sample per readable harness')
  for (const s of sessions) {
    const src = await ferry(['--home', HOME, 'cat', s.sid, '--no-native'])
    t.equal(src.code, 0, src.stderr)
    const before = conversation(jsonl(src.stdout))
    t.ok(before.user.length > 0 && before.uses.length > 0, `${s.sid} has prompts and tool calls`)
    // Three targets at a time: each check waits on two ferry processes, so three keep two cores busy.
    const targets = TARGETS.filter((to) => to !== s.harness)
    const next = () => targets.shift()
    await Promise.all([0, 1, 2].map(async () => {
      for (let to = next(); to !== undefined; to = next()) await check(t, s, to, before)
    }))
  }
  async function check(t: any, s: Rec, to: string, before: ReturnType<typeof conversation>): Promise<void> {
    {
      const out = tempDir(t)
      const w = await ferry(['--home', HOME, 'convert', s.sid, '--to', to, '--out', out, '--json'])
      t.equal(w.code, 0, `${s.sid} → ${to}: ${w.stderr}`)
      const [written] = jsonl(w.stdout)
      const back = await ferry(['cat', written.path, '--no-native'])
      if (back.code !== 0) {
        // Written as a document the agent's own import turns into its store (ferry reads the
        // store, not the document): every tool part holds its call and its result.
        const doc = importDocument(written.path)
        t.ok(doc, `${s.sid} → ${to}: not readable back, so an import document (${back.stderr.trim()})`)
        if (!doc) return
        const parts = doc.messages.flatMap((m: Rec) => m.parts)
        const tools = parts.filter((p: Rec) => p.type === 'tool')
        t.equal(tools.length, before.uses.length, `${s.sid} → ${to}: one tool part per call`)
        for (const p of tools) t.ok(['completed', 'error'].includes(p.state.status), `tool part ${p.callID} has its result`)
        const texts = parts.filter((p: Rec) => p.type === 'text').map((p: Rec) => p.text)
        for (const u of before.user) t.ok(texts.some((x: string) => x.includes(u.slice(0, 40))), `${s.sid} → ${to} keeps the prompt`)
        return
      }
      const after = conversation(jsonl(back.stdout))
      t.equal(after.uses.length, before.uses.length, `${s.sid} → ${to}: same number of tool calls`)
      const ids = new Set(after.uses.map((u: Rec) => u.id))
      t.same(after.results.map((r: Rec) => r.tool_use_id).sort(), [...ids].sort(), `${s.sid} → ${to}: every call answered, no orphan result`)
      for (const u of before.user) t.ok(after.user.some((x: string) => x.includes(u.slice(0, 40))), `${s.sid} → ${to} keeps prompt "${u.slice(0, 30)}"`)
      const last = before.assistant.at(-1)
      if (last) t.ok(after.assistant.some((x: string) => x.includes(last.slice(0, 40))), `${s.sid} → ${to} keeps the final answer`)
    }
  }
})
