import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { grok } from '../../../lib/harness/grok/index.js'
import { encodeCwdDirname } from '../../../lib/harness/grok/paths.js'
import type { FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { tempDir } from '../../helpers.js'
import { ctxFor, GROK_FIXTURES, modelled, readAll, tree, writeAll } from './helpers.js'

const NOT_CARRIED = /(^|\/)terminal($|\/)|\.lock$/

async function sessionDirs(root: string): Promise<string[]> {
  const out: string[] = []
  for await (const s of grok.discover!(ctxFor(root), { all: true })) out.push(s.path)
  return out
}

t.test('native round trip is byte-identical for every fixture session', async (t) => {
  for (const home of ['v1', 'v02', 'edge']) {
    const src = join(GROK_FIXTURES, home)
    for (const dir of await sessionDirs(src)) {
      const out = tempDir(t)
      const recs = await readAll(ctxFor(src), dir, true)
      const { written, errors } = await writeAll(ctxFor(out), recs)
      t.same(errors, [])
      t.equal(written.length, 1)
      const w = written[0]!
      t.equal(w.id, dir.split('/').at(-1), 'same id')
      const a = tree(dir, NOT_CARRIED)
      const b = tree(w.path)
      t.same([...b.keys()].sort(), [...a.keys()].sort(), `${home}: same files (${dir.split('/').slice(-2).join('/')})`)
      for (const [k, v] of a) t.ok(b.get(k)?.equals(v), `${home}: ${k} byte-identical`)
    }
  }
})

t.test('a written session is complete and consistent', async (t) => {
  const src = join(GROK_FIXTURES, 'v1')
  const recs = await readAll(ctxFor(src), '01a1f84a')
  // Pretend it came from another harness, with a hostile id: the writer must mint a UUID.
  const foreign = recs.map((r) => ({ ...r, sid: 'claude-code:../../x' })) as FerryRecord[]
  ;(foreign[0] as SessionRec).native_id = '../../x'
  const out = tempDir(t)
  const { written, errors } = await writeAll(ctxFor(out), foreign)
  t.same(errors, [])
  const w = written[0]!
  t.match(w.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.equal(w.path, join(out, 'sessions', '%2Fhome%2Fdev%2Fdemo-app', w.id), 'under <root>/sessions/<encoded cwd>/<uuid>')
  t.equal(statSync(w.path).mode & 0o777, 0o700)
  const summary = JSON.parse(readFileSync(join(w.path, 'summary.json'), 'utf8'))
  for (const k of ['info', 'session_summary', 'created_at', 'updated_at', 'num_messages', 'current_model_id']) t.ok(k in summary, `summary.${k} (required by Grok's Summary)`)
  t.match(summary, { info: { id: w.id, cwd: '/home/dev/demo-app' }, chat_format_version: 1, current_model_id: 'grok-build', generated_title: 'Diagnose failing npm test script', created_at: '2026-11-20T09:29:58.412Z' })
  const chat = readFileSync(join(w.path, 'chat_history.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  const updates = readFileSync(join(w.path, 'updates.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  t.equal(summary.num_chat_messages, chat.length)
  t.equal(summary.num_messages, updates.length)
  // Every call has a result, arguments are JSON strings.
  const calls = chat.flatMap((c) => (c.type === 'assistant' ? (c.tool_calls ?? []) : []))
  const results = new Set(chat.filter((c) => c.type === 'tool_result').map((c) => c.tool_call_id))
  t.ok(calls.length === 2 && calls.every((c: any) => results.has(c.id) && typeof c.arguments === 'string' && JSON.parse(c.arguments)))
  t.same(calls.map((c: any) => c.name), ['read_file', 'run_terminal_cmd'], 'names through the tool table (Grok snake_case)')
  // The prompt: wrapped, image saved under assets/ and listed, inline too; and on screen.
  const prompt = chat.find((c) => c.type === 'user' && c.prompt_index === 0)
  t.match(prompt.content[0].text, /^<image_files>\n[\s\S]*\n<\/image_files>\n\n<user_query>\nWhy does `npm test` fail here\?/)
  const assets = readdirSync(join(w.path, 'assets'))
  t.equal(assets.length, 1)
  t.ok(prompt.content[0].text.includes(join(w.path, 'assets', assets[0]!)))
  t.same(readFileSync(join(w.path, 'assets', assets[0]!)), readFileSync(join(src, 'sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17/assets/image-5b0e6f2c-1d4a-4c3e-8f71-2a9d3c6b7e40.png')))
  t.match(prompt.content[1].url, /^data:image\/png;base64,iVBOR/)
  t.notOk(chat.some((c) => c.type === 'user' && c.content.some((p: any) => p.text?.includes('<user_info>'))), "another harness's context is not written")
  t.match(chat.find((c) => c.type === 'reasoning'), { id: 'rs_0d41c9e2b7a35f18', encrypted_content: 'ENC-SYNTHETIC-9f2c0a1b7e3d4c55' }, 'xai reasoning keeps its opaque token')
  const kinds = updates.map((u) => u.params.update.sessionUpdate)
  t.same(kinds.filter((k) => k === 'user_message_chunk').length, 2)
  t.ok(updates.every((u) => u.params.sessionId === w.id))
  const failed = updates.find((u) => u.params.update.sessionUpdate === 'tool_call_update' && u.params.update.toolCallId === 'call_b2b9f4d1')
  t.equal(failed.params.update.status, 'failed')
  t.match(updates.at(-1), { method: '_x.ai/session/update', params: { update: { sessionUpdate: 'turn_completed', stop_reason: 'end_turn' } } })
  t.equal(updates[0].params.update._meta.promptIndex, 0)
})
