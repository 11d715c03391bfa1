#!/usr/bin/env node
// Synthetic sessions of issue #41's shapes (forks, encrypted compaction, failed calls, injected
// context mixed with typed words), laid out as the clients lay them out. Every value is made up;
// the record types, key order and links are the clients' (docs/formats/codex.md, opencode.md,
// cursor.md):
// - Codex 0.171 paginated rollouts (ordinals): a parent P; a fork F1 of P (`forked_from_id`,
//   `history_base` ending before P's third turn); a fork F2 of F1; a fork F3 whose parent is not
//   in the store. P holds a shell command that exits 7 and an MCP call that failed (the failure
//   only in the `mcp_tool_call_end` event, as Codex classic records it) and a prompt with an image.
// - Codex remote (encrypted) compaction after a tool call, its result and an image.
// - Codex 0.171 `exec -i FILE`: the prompt's response item wraps the image in label parts
//   (`<image name=[Image #1] path="…">`, the image, `</image>`), its `item_completed` UserMessage holds
//   a `local_image` and the typed text; then an MCP call (namespace `mcp__ferry41`) whose failure is only in
//   its `item_completed` `McpToolCall` turn item (`status: failed`, `result.isError`), and its retry
//   (conformance/scenario41.sh saw these shapes).
// - Codex: a user message whose first item the harness injected (`<environment_context>`,
//   provenance `harness`) and whose second the person typed (provenance `user`).
// - OpenCode 1.18.33: a bash call `completed` with `metadata.exit: 7`, retried.
// - Gemini CLI: a user message whose text is the `<session_context>` section followed by the
//   words the person typed.
// - Cursor agent transcript: a first user message of a `<user_info>` part and a `<user_query>`
//   part; a later one of an `<attached_files>` section followed by plain typed words.
//
//   node test/fidelity/make-issue41.mjs OUTDIR   -> OUTDIR is a fake HOME
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDb, insertDocument, idMaker } from '../../fixtures/opencode/opencode-db.mjs'
import { png8x8 } from '../../fixtures/fidelity/make-fixtures.mjs'

export const CWD = '/home/dev/démo-app'
export const M = {
  p1: 'F41-P1: run the failing command, then call the flaky MCP tool.',
  a1: 'F41-A1: the command exited 7 and the MCP tool failed.',
  p2: 'F41-P2: what is in the attached image?',
  a2: 'F41-A2: an 8x8 gradient.',
  p3: 'F41-P3: parent only, after the fork point.',
  a3: 'F41-A3: parent only answer.',
  fp1: 'F41-FORK1: first fork turn.',
  fa1: 'F41-FORK1-A: answered in the first fork.',
  gp1: 'F41-FORK2: fork of the fork.',
  ga1: 'F41-FORK2-A: answered in the fork of the fork.',
  op: 'F41-ORPHAN: a fork whose parent is gone.',
  oa: 'F41-ORPHAN-A: answered without the parent.',
  exitCmd: 'sh -c "echo f41-fail; exit 7"',
  exitOut: 'f41-fail',
  mcpErr: 'F41-MCP-ERROR: the flaky tool failed',
  ep1: 'F41-E1: list the files and view the image.',
  ea1: 'F41-EA1: listed them and looked at the image.',
  ep2: 'F41-E2: a turn after the encrypted compaction.',
  ea2: 'F41-EA2: done after compaction.',
  lsOut: 'f41-listing',
  mixed: 'F41-MIXED: what does the environment say?',
  mixedA: 'F41-MIXED-A: it says linux.',
  cq1: 'F41-CURSOR-Q1: why is the build red?',
  cq2: 'F41-CURSOR-Q2 typed after attached files',
  ca: 'F41-CURSOR-A: because a test fails.',
  ccArgs: 'F41-CC-ARGS look at the login flow',
  gq: 'F41-GEMINI-Q: typed after the session context',
  ga: 'F41-GEMINI-A: answered.',
  ccA: 'F41-CC-A: reviewed; the failing command exited 7.',
  oc1: 'F41-OC-P1: run the command that fails, then again.',
  ocA: 'F41-OC-A: the first run exited 7, the retry passed.',
  ip: 'F41-IMG-P: look at the attached image.',
  ia: 'F41-IMG-A: an 8x8 gradient.',
  lp: 'F41-LOCAL-P: the image is only a local path here.',
  la: 'F41-LOCAL-A: seen.',
  mcp171Err: 'F41-MCP171-FAIL: transient failure, retry',
  mcp171Ok: 'F41-MCP171-OK: done on call 2',
  todo: 'F41-TODO: write the conformance report',
  todoP: 'F41-TODO-P: plan the work, then look at the attached image.',
  todoA: 'F41-TODO-A: planned; the image is a gradient.',
}
export const IDS = {
  parent: '019b0041-0000-7000-8000-0000000000a0',
  fork1: '019b0041-0000-7000-8000-0000000000f1',
  fork2: '019b0041-0000-7000-8000-0000000000f2',
  orphan: '019b0041-0000-7000-8000-0000000000f3',
  gone: '019b0041-0000-7000-8000-0000000000dd',
  encrypted: '019b0041-0000-7000-8000-0000000000e0',
  mixed: '019b0041-0000-7000-8000-0000000000c0',
  cursor: 'c0410041-0000-4000-8000-000000000041',
  claude: 'c1a0d041-0000-4000-8000-000000000041',
  gemini: '9e410041-0000-4000-8000-000000000041',
  imgprompt: '019b0041-0000-7000-8000-0000000000b0',
  localimg: '019b0041-0000-7000-8000-0000000000b1',
  codexPlan: '019b0041-0000-7000-8000-0000000000d1',
  claudePlan: 'c1a0d041-0000-4000-8000-000000000042',
}

const jsonl = (objs) => objs.map((o) => JSON.stringify(o)).join('\n') + '\n'

/** One paginated Codex rollout: every line has an ordinal, from `first`. */
function rollout(start, first = 0) {
  let t = Date.parse(start)
  let ord = first
  const lines = []
  const rec = (type, payload) => {
    lines.push({ timestamp: new Date((t += 400)).toISOString(), ordinal: ord++, type, payload })
    return ord - 1
  }
  const item = (payload) => rec('response_item', payload)
  const msg = (role, text, extra = {}) => item({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }], ...extra })
  let turnNo = 0
  const turn = () => rec('turn_context', { turn_id: `019b0041-0000-7000-8000-${String(++turnNo + first).padStart(12, '0')}`, cwd: CWD, approval_policy: 'never', sandbox_policy: { type: 'danger-full-access' }, model: 'gpt-5.5', summary: 'auto' })
  const prompt = (text, images = []) => {
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }, ...images.map((d) => ({ type: 'input_image', image_url: `data:image/png;base64,${d}` }))] })
    rec('event_msg', { type: 'user_message', message: text, kind: 'plain', images: images.map((d) => `data:image/png;base64,${d}`) })
  }
  const call = (id, name, args) => item({ type: 'function_call', name, arguments: JSON.stringify(args), call_id: id })
  const out = (id, output) => item({ type: 'function_call_output', call_id: id, output })
  return { lines, rec, item, msg, turn, prompt, call, out, next: () => ord }
}

const meta = (id, extra = {}) => ({ id, timestamp: '2026-11-25T09:00:00.000Z', cwd: CWD, originator: 'codex_exec', cli_version: '0.171.0', source: 'exec', thread_source: 'user', model_provider: 'openai', base_instructions: null, history_mode: 'paginated', ...extra })
const shell = (code, out) => `Chunk ID: 41f41f\nWall time: 0.0100 seconds\nProcess exited with code ${code}\nOriginal token count: 3\nOutput:\n${out}\n`

function codex(home) {
  const day = join(home, '.codex', 'sessions', '2026', '11', '25')
  mkdirSync(day, { recursive: true })
  const img = png8x8()
  const file = (stamp, id, lines) => writeFileSync(join(day, `rollout-2026-11-25T${stamp}-${id}.jsonl`), jsonl(lines))

  // The parent: three turns; the forks start before the third.
  const p = rollout('2026-11-25T09:00:00.000Z')
  p.rec('session_meta', meta(IDS.parent))
  p.turn()
  p.prompt(M.p1)
  p.call('call_f41_exit', 'exec_command', { cmd: M.exitCmd })
  p.out('call_f41_exit', shell(7, M.exitOut))
  p.call('call_f41_mcp', 'mcp__ferry_probe__flaky', { fail: true })
  p.rec('event_msg', { type: 'mcp_tool_call_end', call_id: 'call_f41_mcp', invocation: { server: 'ferry_probe', tool: 'flaky', arguments: { fail: true } }, duration: { secs: 0, nanos: 2000000 }, result: { Err: M.mcpErr } })
  p.out('call_f41_mcp', `tool call error: ${M.mcpErr}`)
  p.msg('assistant', M.a1)
  p.turn()
  p.prompt(M.p2, [img])
  p.msg('assistant', M.a2)
  const forkAt = p.next()
  p.turn()
  p.prompt(M.p3)
  p.msg('assistant', M.a3)
  file('09-00-00', IDS.parent, p.lines)

  // Fork 1 of the parent, at the third turn; its own ordinals continue from the fork point.
  const f1 = rollout('2026-11-25T09:10:00.000Z', forkAt)
  f1.rec('session_meta', meta(IDS.fork1, { forked_from_id: IDS.parent, history_base: { thread_id: IDS.parent, end_ordinal_exclusive: forkAt, end_byte_offset: 0 } }))
  f1.turn()
  f1.prompt(M.fp1)
  f1.msg('assistant', M.fa1)
  const fork2At = f1.next()
  file('09-10-00', IDS.fork1, f1.lines)

  // Fork 2: of fork 1, after fork 1's own turn.
  const f2 = rollout('2026-11-25T09:20:00.000Z', fork2At)
  f2.rec('session_meta', meta(IDS.fork2, { forked_from_id: IDS.fork1, history_base: { thread_id: IDS.fork1, end_ordinal_exclusive: fork2At, end_byte_offset: 0 } }))
  f2.turn()
  f2.prompt(M.gp1)
  f2.msg('assistant', M.ga1)
  file('09-20-00', IDS.fork2, f2.lines)

  // A fork whose parent is not in the store.
  const f3 = rollout('2026-11-25T09:30:00.000Z', 9)
  f3.rec('session_meta', meta(IDS.orphan, { forked_from_id: IDS.gone, history_base: { thread_id: IDS.gone, end_ordinal_exclusive: 9, end_byte_offset: 0 } }))
  f3.turn()
  f3.prompt(M.op)
  f3.msg('assistant', M.oa)
  file('09-30-00', IDS.orphan, f3.lines)

  // Remote compaction with the built-in provider: the summary is an encrypted item.
  const e = rollout('2026-11-25T10:00:00.000Z')
  e.rec('session_meta', meta(IDS.encrypted))
  e.turn()
  e.prompt(M.ep1)
  e.call('call_f41_ls', 'exec_command', { cmd: 'ls' })
  e.out('call_f41_ls', shell(0, M.lsOut))
  e.call('call_f41_view', 'view_image', { path: `${CWD}/f41.png` })
  e.out('call_f41_view', [{ type: 'input_image', image_url: `data:image/png;base64,${img}`, detail: 'original' }])
  e.msg('assistant', M.ea1)
  e.rec('compacted', { message: '', replacement_history: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: M.ep1 }] },
    { type: 'compaction', encrypted_content: 'gAAAAB-f41-synthetic-encrypted-summary' },
  ], window_number: 1 })
  e.rec('event_msg', { type: 'context_compacted' })
  e.turn()
  e.prompt(M.ep2)
  e.msg('assistant', M.ea2)
  file('10-00-00', IDS.encrypted, e.lines)

  // Injected context and typed words in one user message (item provenance).
  const c = rollout('2026-11-25T11:00:00.000Z')
  c.rec('session_meta', meta(IDS.mixed))
  c.turn()
  c.item({ type: 'message', role: 'user', content: [
    { type: 'input_text', text: `<environment_context>\n  <cwd>${CWD}</cwd>\n  <shell>bash</shell>\n</environment_context>` },
    { type: 'input_text', text: M.mixed },
  ], internal_chat_message_metadata_passthrough: { content_item_metadata: [{ provenance: { type: 'harness' } }, { provenance: { type: 'user' } }] } })
  c.rec('event_msg', { type: 'user_message', message: M.mixed, kind: 'plain' })
  c.msg('assistant', M.mixedA)
  file('11-00-00', IDS.mixed, c.lines)

  // A prompt with an attached image, as `codex exec -i FILE` writes it (paginated: a turn item beside the response item).
  const i = rollout('2026-11-25T11:30:00.000Z')
  i.rec('session_meta', meta(IDS.imgprompt))
  const turnId = '019b0041-0000-7000-8000-00000000b0b0'
  i.rec('turn_context', { turn_id: turnId, cwd: CWD, approval_policy: 'never', sandbox_policy: { type: 'danger-full-access' }, model: 'gpt-5.5', summary: 'auto' })
  i.item({ type: 'message', id: 'msg_019b0041-0000-7000-8000-00000000b0b1', role: 'user', content: [
    { type: 'input_text', text: `<image name=[Image #1] path="${CWD}/f41.png">` },
    { type: 'input_image', image_url: `data:image/png;base64,${img}`, detail: 'original' },
    { type: 'input_text', text: '</image>' },
    { type: 'input_text', text: M.ip },
  ] })
  i.rec('event_msg', { type: 'item_completed', thread_id: IDS.imgprompt, turn_id: turnId, item: { type: 'UserMessage', id: '019b0041-0000-7000-8000-00000000b0b2', content: [{ type: 'local_image', path: `${CWD}/f41.png` }, { type: 'text', text: M.ip, text_elements: [] }] } })
  const mcp = (id, token, ok) => {
    i.item({ type: 'function_call', name: 'ferry_flaky', namespace: 'mcp__ferry41', arguments: JSON.stringify({ token }), call_id: id })
    i.rec('event_msg', { type: 'item_completed', thread_id: IDS.imgprompt, turn_id: turnId, item: { type: 'McpToolCall', id, server: 'ferry41', tool: 'ferry_flaky', arguments: { token }, status: ok ? 'completed' : 'failed', result: { content: [{ type: 'text', text: ok ? M.mcp171Ok : M.mcp171Err }], ...(ok ? {} : { isError: true }) }, duration: { secs: 0, nanos: 9000000 } } })
    i.item({ type: 'function_call_output', call_id: id, output: [{ type: 'input_text', text: 'Wall time: 0.0140 seconds\nOutput:' }, { type: 'input_text', text: ok ? M.mcp171Ok : M.mcp171Err }] })
  }
  mcp('call_f41_mcp171_a', 'first', false)
  mcp('call_f41_mcp171_b', 'retry', true)
  i.msg('assistant', M.ia)
  file('11-30-00', IDS.imgprompt, i.lines)

  // A turn item without its response item (a migrated or bounded rollout): the prompt's image is only a local path.
  const l = rollout('2026-11-25T11:40:00.000Z')
  l.rec('session_meta', meta(IDS.localimg))
  const lturn = '019b0041-0000-7000-8000-00000000b1b1'
  l.rec('turn_context', { turn_id: lturn, cwd: CWD, approval_policy: 'never', sandbox_policy: { type: 'danger-full-access' }, model: 'gpt-5.5', summary: 'auto' })
  l.rec('event_msg', { type: 'item_completed', thread_id: IDS.localimg, turn_id: lturn, item: { type: 'UserMessage', id: '019b0041-0000-7000-8000-00000000b1b2', content: [{ type: 'local_image', path: `${CWD}/f41-local.png` }, { type: 'text', text: M.lp, text_elements: [] }] } })
  l.msg('assistant', M.la)
  file('11-40-00', IDS.localimg, l.lines)

  // The plan tool (`[tools.update_plan] enabled = true`), as Codex 0.171 writes its call and output.
  const u = rollout('2026-11-25T11:50:00.000Z')
  u.rec('session_meta', meta(IDS.codexPlan))
  u.turn()
  u.prompt(M.todoP, [img])
  u.call('call_f41_plan', 'update_plan', { plan: [{ status: 'in_progress', step: M.todo }], explanation: 'F41 plan' })
  u.out('call_f41_plan', 'Plan updated')
  u.msg('assistant', M.todoA)
  file('11-50-00', IDS.codexPlan, u.lines)
}

function opencode(home) {
  const ids = idMaker()
  const t0 = 1796100000000
  const ses = ids.ses(t0, 'issue41Exit0001')
  const model = { providerID: 'ferrymock', modelID: 'mock-model' }
  const tokens = { total: 100, input: 80, output: 20, reasoning: 0, cache: { read: 0, write: 0 } }
  let lastUser = null
  const user = (t, text) => {
    const id = ids.msg(t)
    lastUser = id
    return { info: { id, sessionID: ses, role: 'user', time: { created: t }, agent: 'build', model }, parts: [{ id: ids.prt(t), sessionID: ses, messageID: id, type: 'text', text }] }
  }
  const step = (t, parts, finish) => {
    const id = ids.msg(t)
    return {
      info: { id, sessionID: ses, role: 'assistant', parentID: lastUser, mode: 'build', agent: 'build', path: { cwd: CWD, root: '/' }, cost: 0, tokens, modelID: 'mock-model', providerID: 'ferrymock', time: { created: t, completed: t + 300 }, finish },
      parts: [{ type: 'step-start' }, ...parts, { type: 'step-finish', reason: finish, tokens, cost: 0 }].map((p) => ({ id: ids.prt(t), sessionID: ses, messageID: id, ...p })),
    }
  }
  const bash = (callID, exit, t) => ({ type: 'tool', tool: 'bash', callID, state: { status: 'completed', input: { command: M.exitCmd, description: 'Fails on purpose' }, output: `${M.exitOut}\n`, title: M.exitCmd, metadata: { output: `${M.exitOut}\n`, exit, truncated: false }, time: { start: t, end: t + 50 } } })
  // OpenCode 1.18.33's todowrite, as it stores the call (its output is the list as JSON).
  const todos = [{ content: M.todo, status: 'in_progress', priority: 'high' }]
  const todowrite = (callID, t) => ({ type: 'tool', tool: 'todowrite', callID, state: { status: 'completed', input: { todos }, output: JSON.stringify(todos, null, 2), metadata: { todos, truncated: false }, title: '1 todos', time: { start: t, end: t + 20 } } })
  const m = [
    user(t0 + 100, M.oc1),
    step(t0 + 1000, [bash('call_f41oc_1', 7, t0 + 1010)], 'tool-calls'),
    step(t0 + 2000, [bash('call_f41oc_2', 0, t0 + 2010)], 'tool-calls'),
    step(t0 + 3000, [{ type: 'text', text: M.ocA, time: { start: t0 + 3010, end: t0 + 3010 } }], 'stop'),
    user(t0 + 3500, M.todoP),
    step(t0 + 4000, [todowrite('call_f41oc_todo', t0 + 4010)], 'tool-calls'),
    step(t0 + 5000, [{ type: 'text', text: M.todoA, time: { start: t0 + 5010, end: t0 + 5010 } }], 'stop'),
  ]
  const path = join(home, '.local', 'share', 'opencode', 'opencode.db')
  mkdirSync(dirname(path), { recursive: true })
  const db = createDb(path)
  insertDocument(db, { info: { id: ses, slug: 'issue-41-exit', projectID: 'global', directory: CWD, title: 'Issue 41 failing command', version: '1.18.33', time: { created: t0, updated: t0 + 6000 } }, messages: m })
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return ses
}

function cursor(home) {
  const dir = join(home, '.cursor', 'projects', 'home-dev-demo-app', 'agent-transcripts', IDS.cursor)
  mkdirSync(dir, { recursive: true })
  const lines = [
    { role: 'user', message: { content: [
      { type: 'text', text: `<user_info>\nOS Version: linux 6.1\nShell: bash\nWorkspace Path: ${CWD}\n</user_info>` },
      { type: 'text', text: `<timestamp>2026-11-25T12:00:00.000Z</timestamp>\n<user_query>\n${M.cq1}\n</user_query>` },
    ] } },
    { role: 'assistant', message: { content: [{ type: 'text', text: M.ca }] } },
    { role: 'user', message: { content: [{ type: 'text', text: `<attached_files>\n<file path="${CWD}/a.txt">hello</file>\n</attached_files>\n\n${M.cq2}` }] } },
    { role: 'assistant', message: { content: [{ type: 'text', text: M.ca }] } },
  ]
  writeFileSync(join(dir, `${IDS.cursor}.jsonl`), jsonl(lines))
}

/** A Claude Code 2.1.332 transcript's lines, one chain: `user` and `assistant` append a line each, half a second apart. */
function claudeLines(sid, uuidPrefix, start, extraEnv = {}) {
  let n = 0
  let t = Date.parse(start)
  const uuid = () => `${uuidPrefix}-0000-4000-8000-${String(++n).padStart(12, '0')}`
  const env = (parentUuid) => ({ parentUuid, isSidechain: false, userType: 'external', ...extraEnv, cwd: CWD, sessionId: sid, version: '2.1.332', gitBranch: '' })
  const lines = []
  let last = null
  const user = (content, extra = {}) => {
    const u = uuid()
    lines.push({ ...env(last), type: 'user', message: { role: 'user', content }, ...extra, uuid: u, timestamp: new Date((t += 500)).toISOString() })
    return (last = u)
  }
  const assistant = (apiId, block, stop) => {
    const u = uuid()
    lines.push({ ...env(last), message: { model: 'claude-opus-5-5', id: apiId, type: 'message', role: 'assistant', content: [block], stop_reason: stop, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 10 } }, type: 'assistant', uuid: u, timestamp: new Date((t += 500)).toISOString() })
    return (last = u)
  }
  return { lines, user, assistant }
}

// Claude Code 2.1.332: a slash command with arguments the person typed, then a Bash call that
// exits 7 (Claude Code flags it `is_error` itself) and its retry.
function claude(home) {
  const dir = join(home, '.claude', 'projects', '-home-dev-d-mo-app')
  mkdirSync(dir, { recursive: true })
  const sid = IDS.claude
  const { lines, user, assistant } = claudeLines(sid, 'c1a0d041', '2026-11-25T13:00:00.000Z')
  user(`<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>${M.ccArgs}</command-args>`)
  assistant('msg_f41_1', { type: 'tool_use', id: 'toolu_f41_exit', name: 'Bash', input: { command: M.exitCmd, description: 'Fails on purpose' } }, 'tool_use')
  user([{ type: 'tool_result', content: `Exit code 7\n${M.exitOut}`, is_error: true, tool_use_id: 'toolu_f41_exit' }], { toolUseResult: `Error: Exit code 7\n${M.exitOut}` })
  assistant('msg_f41_2', { type: 'tool_use', id: 'toolu_f41_retry', name: 'Bash', input: { command: `echo ${M.exitOut}`, description: 'Retry' } }, 'tool_use')
  user([{ type: 'tool_result', content: M.exitOut, is_error: false, tool_use_id: 'toolu_f41_retry' }], { toolUseResult: { stdout: M.exitOut, stderr: '', interrupted: false, isImage: false } })
  assistant('msg_f41_3', { type: 'text', text: M.ccA }, 'end_turn')
  writeFileSync(join(dir, `${sid}.jsonl`), jsonl(lines))
  claudePlan(dir)
}

// Claude Code 2.1.332 (`CLAUDE_CODE_ENABLE_TODO_TOOLS=1`, a prompt sent with `--input-format stream-json`): the
// prompt's text and image block in one message, then TaskCreate and TodoWrite calls with their results.
function claudePlan(dir) {
  const sid = IDS.claudePlan
  const { lines, user, assistant } = claudeLines(sid, 'c1a0d042', '2026-11-25T13:30:00.000Z', { entrypoint: 'sdk-cli' })
  user([{ type: 'text', text: M.todoP }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png8x8() } }], { imagePasteIds: [1], promptSource: 'sdk' })
  assistant('msg_f41p_1', { type: 'tool_use', id: 'toolu_f41_task', name: 'TaskCreate', input: { subject: M.todo, description: M.todo, activeForm: 'Writing the conformance report' } }, 'tool_use')
  user([{ tool_use_id: 'toolu_f41_task', type: 'tool_result', content: `Task #1 created successfully: ${M.todo}` }], { toolUseResult: { task: { id: '1', subject: M.todo, description: M.todo } } })
  const todos = [{ content: M.todo, status: 'in_progress', activeForm: 'Writing the conformance report' }]
  assistant('msg_f41p_2', { type: 'tool_use', id: 'toolu_f41_todo', name: 'TodoWrite', input: { todos } }, 'tool_use')
  user([{ tool_use_id: 'toolu_f41_todo', type: 'tool_result', content: 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable' }], { toolUseResult: { oldTodos: [], newTodos: todos } })
  assistant('msg_f41p_3', { type: 'text', text: M.todoA }, 'end_turn')
  writeFileSync(join(dir, `${sid}.jsonl`), jsonl(lines))
}

// Gemini CLI (JSONL chats): the session context and the person's words in one user message.
function gemini(home) {
  const root = join(home, '.gemini')
  const dir = join(root, 'tmp', 'demo-app')
  mkdirSync(join(dir, 'chats'), { recursive: true })
  writeFileSync(join(root, 'projects.json'), JSON.stringify({ projects: { [CWD]: 'demo-app' } }, null, 2))
  writeFileSync(join(dir, '.project_root'), CWD)
  const sid = IDS.gemini
  const lines = [
    { sessionId: sid, projectHash: '4f15e4aa9286a8f37647f6fc7ce7ce2758005cbea77042c7667a00a31a1469ef', startTime: '2026-11-25T14:00:00.000Z', lastUpdated: '2026-11-25T14:00:02.000Z', kind: 'main' },
    { id: '9e410041-0000-4000-8000-000000000001', timestamp: '2026-11-25T14:00:01.000Z', type: 'user', content: [{ text: `<session_context>\nThis is the Gemini CLI. Today's date is Wednesday, November 25, 2026.\nMy operating system is: linux\n</session_context>\n\n${M.gq}` }] },
    { id: '9e410041-0000-4000-8000-000000000002', timestamp: '2026-11-25T14:00:02.000Z', type: 'gemini', content: M.ga, thoughts: [], tokens: { input: 100, output: 5, cached: 0, thoughts: 0, tool: 0, total: 105 }, model: 'gemini-2.5-pro' },
  ]
  writeFileSync(join(dir, 'chats', 'session-2026-11-25T14-00-9e410041.jsonl'), jsonl(lines))
}

/** Writes every session under `home`; returns the refs. */
export function makeHome(home) {
  codex(home)
  const oc = opencode(home)
  cursor(home)
  claude(home)
  gemini(home)
  return { ...IDS, opencode: oc }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2]
  if (!out) {
    console.error('usage: make-issue41.mjs OUTDIR')
    process.exit(2)
  }
  console.log(JSON.stringify(makeHome(out)))
}
