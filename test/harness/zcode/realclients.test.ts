// Genuine sessions from ../shared/realclients (gen.sh, real Claude Code / Codex / OpenCode against the
// mock model) written --to zcode into a database ZCode's migrations made: the resume-requirement check
// finds nothing, and the conversation reads back intact. Runs when FERRY_GEN_DIR names a gen.sh
// output directory (`gen.sh DIR claude-code codex opencode`); skipped otherwise (the sessions are not
// committed).
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileTimeout, ferry, jsonl, kit } from '../../kit.js'
import { resumeViolations } from './resume-check.js'

const GEN = process.env.FERRY_GEN_DIR
const CLIENTS = ['claude-code', 'codex', 'opencode']
fileTimeout(t, 5 * 60_000)

type Rec = Record<string, any>
function conversation(recs: Rec[]) {
  const ms = recs.filter((r) => r.kind === 'message' && !r.context)
  const texts = (role: string) => ms.filter((m) => m.role === role).flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'text').map((b: Rec) => b.text))
  // The model's calls: a person's slash command (Claude Code's user-side `/compact` call) is a prompt in ZCode.
  const commands = ms.filter((m) => m.role === 'user').flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_use').map((b: Rec) => b.name))
  return { user: [...texts('user'), ...commands], assistant: texts('assistant'), calls: ms.filter((m) => m.role === 'assistant').flatMap((m) => m.blocks.filter((b: Rec) => b.type === 'tool_use')).length }
}

for (const client of CLIENTS) {
  const home = GEN ? join(GEN, client, 'home') : ''
  t.test(`genuine ${client} session --to zcode`, { skip: GEN && existsSync(home) ? false : 'FERRY_GEN_DIR not set (run realclients/gen.sh)' }, async (t) => {
    const ls = await ferry(['--home', home, 'ls', '--harness', client, '--json'])
    const [s] = jsonl(ls.stdout)
    t.ok(s, `${client}: a session in ${home}`)
    const cat = await ferry(['--home', home, 'cat', s.sid, '--no-native'])
    t.equal(cat.code, 0, cat.stderr)
    const before = conversation(jsonl(cat.stdout))
    const target = kit('zcode').home(t, 'empty')
    const db = join(target, '.zcode', 'cli', 'db', 'db.sqlite')
    const w = await ferry(['--home', target, 'write', '--to', 'zcode', '--json'], { input: cat.stdout })
    t.equal(w.code, 0, w.stderr)
    const written = jsonl(w.stdout)
    for (const ws of written) t.same(resumeViolations(db, ws.id), [], `${s.sid} → zcode:${ws.id}: zero resume-requirement violations`)
    const back = await ferry(['--home', target, 'cat', `zcode:${written[0].id}`, '--no-native'])
    t.equal(back.code, 0, back.stderr)
    const after = conversation(jsonl(back.stdout))
    t.equal(after.calls, before.calls, 'every tool call')
    for (const u of before.user) t.ok(after.user.some((x) => x.includes(u.slice(0, 40))), `prompt kept: ${u.slice(0, 30)}`)
    t.ok(after.assistant.some((x) => x.includes('FERRY-DONE')), 'the final answer kept')
    t.comment(`${client} ${s.id} → zcode ${written.map((x: Rec) => x.id).join(', ')}`)
  })
}
