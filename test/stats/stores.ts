/**
 * Stores with usage written as each agent writes it, duplicates included, for `ferry stats` and
 * the ccusage comparison. Synthetic; the shapes are the agents' own (docs/formats/*.md):
 *
 * - Claude Code: one response streamed as one entry per content block, each with the same
 *   `message.id`, `requestId` and usage; a rewound prompt whose answer stays in the file off the
 *   active branch (billed); a resumed session that starts with copies of the earlier session's
 *   entries (same ids); a sub-agent transcript; a model no price table knows.
 * - Codex: `token_count` events after each response (`last_token_usage` and the cumulative
 *   `total_token_usage`), one repeated with unchanged totals (a rate-limit update).
 * - OpenCode: the scenario database of fixtures/opencode (per-message `tokens` and `cost`).
 *
 * `EXPECTED` is what every tool should count on them, worked out by hand below.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createDb, insertDocument, idMaker } from '../../fixtures/opencode/opencode-db.mjs'
import { archivedSession, demoSession, richSessions } from '../../fixtures/opencode/scenarios.mjs'

const line = (o: unknown) => JSON.stringify(o) + '\n'

function write(path: string, lines: unknown[]): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, lines.map(line).join(''))
}

export const IDS = {
  shop1: '5a7a0001-0000-4000-8000-000000000001',
  shop2: '5a7a0001-0000-4000-8000-000000000002',
  blog: '5a7a0001-0000-4000-8000-000000000003',
  agent: 'a5a7a00000000001',
  codex1: '019a5000-0000-7000-8000-000000000001',
  codex2: '019a5000-0000-7000-8000-000000000002',
}

interface Usage {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  output_tokens: number
}

const u = (input: number, cw: number, cr: number, output: number): Usage => ({ input_tokens: input, cache_creation_input_tokens: cw, cache_read_input_tokens: cr, output_tokens: output })

function claudeSession(sessionId: string, cwd: string, sidechain = false, agentId?: string) {
  let n = 0
  const base = (type: string, uuid: string, parent: string | null, ts: string) => ({
    parentUuid: parent,
    isSidechain: sidechain,
    ...(agentId ? { agentId } : {}),
    userType: 'external',
    cwd,
    sessionId,
    version: '2.0.14',
    gitBranch: 'main',
    type,
    uuid,
    timestamp: ts,
  })
  const uid = () => `${sessionId.slice(0, 8)}-0000-4000-8000-${String(++n).padStart(12, '0')}`
  return {
    user(parent: string | null, ts: string, content: unknown) {
      const uuid = uid()
      return { uuid, entry: { ...base('user', uuid, parent, ts), message: { role: 'user', content } } }
    },
    /** One response as Claude Code writes it: an entry per content block, one message id, one request id, the same usage on each. */
    response(parent: string | null, ts: string, id: string, req: string, model: string, usage: Usage, blocks: unknown[], stop: string | null) {
      const out: Array<Record<string, unknown>> = []
      let p = parent
      for (const [i, b] of blocks.entries()) {
        const uuid = uid()
        out.push({
          ...base('assistant', uuid, p, ts),
          message: { id, type: 'message', role: 'assistant', model, content: [b], stop_reason: i === blocks.length - 1 ? stop : null, stop_sequence: null, usage: { ...usage, service_tier: 'standard' } },
          requestId: req,
        })
        p = uuid
      }
      return { uuid: p!, entries: out }
    },
  }
}

const SONNET = 'claude-sonnet-4-5-20250929'
const HAIKU = 'claude-haiku-4-5-20251001'
const OPUS = 'claude-opus-4-5-20251101'
const MYSTERY = 'claude-mystery-9'

function claudeStores(home: string): void {
  const projects = join(home, '.claude', 'projects')
  // Session 1, /home/dev/shop, 2026-11-02.
  const s = claudeSession(IDS.shop1, '/home/dev/shop')
  const u1 = s.user(null, '2026-11-02T09:00:00.000Z', 'Why is the cart empty?')
  const a1 = s.response(u1.uuid, '2026-11-02T09:00:05.000Z', 'msg_01shop', 'req_01shop', SONNET, u(10, 2000, 0, 150), [
    { type: 'thinking', thinking: 'Look at the cart store.', signature: 'c2ln' },
    { type: 'text', text: 'Let me read the store.' },
    { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/home/dev/shop/cart.ts' } },
  ], 'tool_use')
  const r1 = s.user(a1.uuid, '2026-11-02T09:00:06.000Z', [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const cart = []' }])
  const a2 = s.response(r1.uuid, '2026-11-02T09:00:09.000Z', 'msg_02shop', 'req_02shop', SONNET, u(5, 300, 2000, 80), [{ type: 'text', text: 'The cart is never filled.' }], 'end_turn')
  // A prompt the user rewound: its answer was billed, then the conversation went on from a2.
  const u2 = s.user(a2.uuid, '2026-11-02T09:01:00.000Z', 'Fix it with a class')
  const a3 = s.response(u2.uuid, '2026-11-02T09:01:04.000Z', 'msg_03shop', 'req_03shop', SONNET, u(8, 100, 2300, 400), [{ type: 'text', text: 'Here is a class…' }], 'end_turn')
  const u3 = s.user(a2.uuid, '2026-11-02T09:02:00.000Z', 'Fix it with a function')
  const a4 = s.response(u3.uuid, '2026-11-02T09:02:04.000Z', 'msg_04shop', 'req_04shop', SONNET, u(6, 50, 2300, 200), [{ type: 'text', text: 'Done.' }], 'end_turn')
  const a5 = s.response(a4.uuid, '2026-11-02T09:02:30.000Z', 'msg_05shop', 'req_05shop', MYSTERY, u(3, 0, 0, 7), [{ type: 'text', text: 'Also checked the tests.' }], 'end_turn')
  write(join(projects, '-home-dev-shop', `${IDS.shop1}.jsonl`), [u1.entry, ...a1.entries, r1.entry, ...a2.entries, u2.entry, ...a3.entries, u3.entry, ...a4.entries, ...a5.entries])

  // Its sub-agent (a Task), in the session's subagents/ folder.
  const sa = claudeSession(IDS.shop1, '/home/dev/shop', true, IDS.agent)
  const su = sa.user(null, '2026-11-02T09:00:07.000Z', 'Find where the cart is filled')
  const sr = sa.response(su.uuid, '2026-11-02T09:00:08.000Z', 'msg_06shop', 'req_06shop', HAIKU, u(400, 1200, 0, 60), [{ type: 'text', text: 'Nowhere.' }], 'end_turn')
  const sub = join(projects, '-home-dev-shop', IDS.shop1, 'subagents')
  write(join(sub, `agent-${IDS.agent}.jsonl`), [su.entry, ...sr.entries])
  writeFileSync(join(sub, `agent-${IDS.agent}.meta.json`), JSON.stringify({ agentType: 'general-purpose', description: 'Find the cart', toolUseId: 'toolu_01', spawnDepth: 1, model: HAIKU, finished: true }))

  // Session 2, resumed from session 1 on 2026-11-03: it starts with copies of session 1's entries (same message and request ids).
  const t = claudeSession(IDS.shop2, '/home/dev/shop')
  const c1 = t.user(null, '2026-11-02T09:00:00.000Z', 'Why is the cart empty?')
  const c2 = t.response(c1.uuid, '2026-11-02T09:00:05.000Z', 'msg_01shop', 'req_01shop', SONNET, u(10, 2000, 0, 150), [{ type: 'text', text: 'Let me read the store.' }], 'end_turn')
  const c3 = t.user(c2.uuid, '2026-11-03T10:00:00.000Z', 'And the checkout?')
  const c4 = t.response(c3.uuid, '2026-11-03T10:00:06.000Z', 'msg_07shop', 'req_07shop', SONNET, u(12, 800, 2400, 300), [{ type: 'text', text: 'Checkout works.' }], 'end_turn')
  write(join(projects, '-home-dev-shop', `${IDS.shop2}.jsonl`), [c1.entry, ...c2.entries, c3.entry, ...c4.entries])

  // Session 3, another project, the next week.
  const b = claudeSession(IDS.blog, '/home/dev/blog')
  const b1 = b.user(null, '2026-11-10T08:00:00.000Z', 'Write the intro')
  const b2 = b.response(b1.uuid, '2026-11-10T08:00:09.000Z', 'msg_08blog', 'req_08blog', OPUS, u(20, 5000, 0, 900), [{ type: 'text', text: 'Intro…' }], 'end_turn')
  write(join(projects, '-home-dev-blog', `${IDS.blog}.jsonl`), [b1.entry, ...b2.entries])
}

function codexRollout(home: string, id: string, day: string, cwd: string, model: string, responses: Array<{ input: number; cached: number; output: number; reasoning: number; tool?: boolean }>, repeatFirst: boolean): void {
  const ts = (s: number) => new Date(Date.parse(`${day}T14:00:00.000Z`) + s * 1000).toISOString()
  let t = 0
  const lines: unknown[] = [
    { timestamp: ts(t), type: 'session_meta', payload: { id, timestamp: ts(0), cwd, originator: 'codex_cli_rs', cli_version: '0.58.0', instructions: null, source: 'cli', model_provider: 'openai' } },
    { timestamp: ts(t), type: 'turn_context', payload: { cwd, approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model, effort: 'medium', summary: 'auto' } },
    { timestamp: ts(++t), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests' }] } },
    { timestamp: ts(t), type: 'event_msg', payload: { type: 'user_message', message: 'Run the tests', images: [] } },
  ]
  const total = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 }
  for (const [i, r] of responses.entries()) {
    const last = { input_tokens: r.input, cached_input_tokens: r.cached, output_tokens: r.output, reasoning_output_tokens: r.reasoning, total_tokens: r.input + r.output }
    for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += last[k]
    lines.push({ timestamp: ts(++t), type: 'response_item', payload: { type: 'reasoning', id: `rs_${id.slice(-4)}_${i}`, summary: [{ type: 'summary_text', text: 'Thinking' }], content: null, encrypted_content: 'gAAA' } })
    if (r.tool) lines.push({ timestamp: ts(t), type: 'response_item', payload: { type: 'function_call', id: `fc_${id.slice(-4)}_${i}`, name: 'shell', arguments: '{"command":["npm","test"]}', call_id: `call_${i}` } })
    else lines.push({ timestamp: ts(t), type: 'response_item', payload: { type: 'message', id: `msg_${id.slice(-4)}_${i}`, role: 'assistant', content: [{ type: 'output_text', text: 'All green.' }] } })
    const count = { timestamp: ts(t), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 272000 }, rate_limits: { primary: { used_percent: 1 + i, window_minutes: 300 } } } }
    lines.push(count)
    // A rate-limit update repeats the last token_count with the same totals.
    if (repeatFirst && i === 0) lines.push({ ...count, timestamp: ts(++t) })
    if (r.tool) lines.push({ timestamp: ts(++t), type: 'response_item', payload: { type: 'function_call_output', call_id: `call_${i}`, output: '{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.5}}' } })
  }
  const [y, m, d] = day.split('-')
  write(join(home, '.codex', 'sessions', y!, m!, d!, `rollout-${day}T14-00-00-${id}.jsonl`), lines)
}

function codexStores(home: string): void {
  codexRollout(home, IDS.codex1, '2026-11-05', '/home/dev/shop', 'gpt-5-codex', [
    { input: 3000, cached: 1000, output: 200, reasoning: 50, tool: true },
    { input: 4000, cached: 2500, output: 120, reasoning: 30 },
  ], true)
  codexRollout(home, IDS.codex2, '2026-11-11', '/home/dev/blog', 'gpt-5.1-codex', [{ input: 9000, cached: 0, output: 700, reasoning: 300 }], false)
}

/** OpenCode's scenario sessions (fixtures/opencode/scenarios.mjs), every message with its tokens and cost; no damaged row. */
function opencodeStore(home: string): void {
  const dir = join(home, '.local', 'share', 'opencode')
  mkdirSync(dir, { recursive: true })
  const db = createDb(join(dir, 'opencode.db'))
  const ids = idMaker()
  const rich = richSessions(ids)
  insertDocument(db, demoSession(ids))
  insertDocument(db, rich.parent)
  insertDocument(db, rich.child)
  insertDocument(db, archivedSession(ids), { archived: 1795800009000 })
  db.close()
}

/** Writes the Claude Code, Codex and OpenCode stores into `home`. */
export function usageStores(home: string): void {
  claudeStores(home)
  codexStores(home)
  opencodeStore(home)
}

/**
 * Per agent, what each response adds (input is uncached input, as Anthropic counts it; Codex's
 * cached tokens are taken out of its input).
 * Claude Code: msg_01 (once, though written as 3 entries and copied into session 2) 10/150/0/2000,
 * msg_02 5/80/2000/300, msg_03 (rewound, billed) 8/400/2300/100, msg_04 6/200/2300/50,
 * msg_05 3/7/0/0, msg_06 (sub-agent) 400/60/0/1200, msg_07 12/300/2400/800, msg_08 20/900/0/5000.
 * Codex: 2000/200/1000 (the repeated token_count is not a response), 1500/120/2500, 9000/700/0.
 */
export const EXPECTED = {
  /** The scenario database's eight assistant messages, as OpenCode recorded them (cost included: $0.016). */
  opencode: { input_tokens: 9600, output_tokens: 640, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 160 },
  'claude-code': { input_tokens: 464, output_tokens: 2097, cache_read_tokens: 9000, cache_write_tokens: 9450, reasoning_tokens: 0 },
  codex: { input_tokens: 12500, output_tokens: 1020, cache_read_tokens: 3500, cache_write_tokens: 0, reasoning_tokens: 380 },
}
