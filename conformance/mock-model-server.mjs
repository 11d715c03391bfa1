#!/usr/bin/env node
// Scripted mock model server for driving REAL coding-agent clients offline.
// Node built-ins only. Speaks just enough of:
//   - Anthropic Messages API   POST .../v1/messages            (SSE streaming + non-streaming, tool_use, thinking)
//                              POST .../v1/messages/count_tokens
//   - OpenAI Responses API     POST .../responses               (SSE streaming, function_call / custom_tool_call, reasoning)
//   - OpenAI Chat Completions  POST .../chat/completions        (SSE streaming, tool_calls, reasoning_content)
//   - Gemini generateContent   POST .../models/<m>:streamGenerateContent (SSE) and :generateContent
//                              (functionCall / functionResponse, thought parts, thoughtSignature; JSON-schema
//                              answers for side requests with responseMimeType application/json),
//                              plus :countTokens and :embedContent (Gemini CLI)
//   - GET .../models                                            (model list in both shapes)
// Every request is appended (one JSON line) to the log file, with the reply the mock chose.
//
// The scripted conversation is decided statelessly from the history in each request. After a turn
// start (a user message with text and no tool result), the k-th reply is the k-th step of --steps
// that the client has a tool for (steps without a usable tool are dropped):
//     "bash":   text (+ thinking/reasoning) + shell tool call  `echo ferry-probe`
//     "read":   text + read-file tool call   <workdir>/probe.txt   (falls back to `cat` via the shell tool)
//     "edit":   text + edit tool call on probe.txt  (Edit / edit / apply_patch / Gemini replace / Pi edit{edits[]};
//               falls back to sed)
//     "bigout": text + shell tool call `seq 1 30000` (large output: clients spill it to side files)
//     "fail":   text + shell tool call that prints ferry-fail and exits 7 (issue #41: a failed call)
//     "agent":  text + subagent tool call (Claude Code Agent, OpenCode/Kilo/Copilot task, Qwen agent, Gemini
//               invoke_agent) whose prompt contains FERRY-SUBAGENT; the subagent's own first request is answered
//               with FERRY-SUBAGENT-DONE (Gemini CLI sub-agents: a complete_task call carrying it)
//     then:     final text containing FERRY-DONE
//   Codex "code mode" (only a freeform `exec` JavaScript tool) gets JS that calls tools.exec_command /
//   tools.apply_patch. Shell/tool argument names are read from each tool's JSON schema.
// A turn start that has earlier assistant content (a resumed session) -> text containing FERRY-RESUMED
// (no tool call), saying whether the probe output was in the history. In --mode resume every turn is
// answered with text only (FERRY-RESUMED, or FERRY-RESUMED-EMPTY when no earlier assistant content).
// A request that offers no tools (title generation etc.) -> short plain text ("side").
// A Codex compaction request (last input item compaction_trigger) -> one `compaction` output item.
//
// Usage:
//   node mock-model-server.mjs serve [--host 127.0.0.1] [--port 8765] [--log FILE] [--workdir DIR]
//                                    [--steps bash,read,edit,bigout,agent] [--thinking 1|0] [--ready-file FILE]
//                                    [--mode gen|resume]
//   node mock-model-server.mjs normalize LOGFILE [--select main|last|all|N|step:NAME] [--system] [--meta]
//       prints the normalized history of a logged request as JSON (see README).
// Env fallbacks: MOCK_HOST MOCK_PORT MOCK_LOG MOCK_WORKDIR MOCK_STEPS MOCK_THINKING MOCK_READY_FILE MOCK_MODE

import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const MARK_DONE = 'FERRY-DONE marker=ferry-probe-ok';
const MARK_RESUMED = 'FERRY-RESUMED';
const PROBE_CMD = 'echo ferry-probe';
const PROBE_OUT = 'ferry-probe';
const PROBE_FILE = 'probe.txt';
const PROBE_OLD = 'line two: hello';
const PROBE_NEW = 'line two: hello, ferry';
const BIGOUT_CMD = 'seq 1 30000';
const FAIL_CMD = 'sh -c "echo ferry-fail; exit 7"';
const SUBAGENT_PROMPT = 'FERRY-SUBAGENT: reply with the subagent marker.';
const MARK_SUBAGENT = 'FERRY-SUBAGENT-DONE marker=ferry-subagent-ok';
const PAR_CMDS = ['echo ferry-par-one', 'echo ferry-par-two'];
const IMAGE_FILE = 'ferry-image.png';
const MARK_SUMMARY = 'FERRY-SUMMARY marker=ferry-summary-ok';
// Issue #41 scenario (conformance/scenario41.sh): the project's own MCP tool that fails once, a todo/plan
// item, and a command whose output holds CRLF, control bytes, invalid UTF-8 and a 300 KB line.
const MCP_FLAKY = /(^|[_.\-])ferry_flaky$/;
const TODO_TEXT = 'FERRY-TODO: write the conformance report';
// The odd lines come before and after the long one: clients keep a big output's head (Claude Code), its tail
// (OpenCode) or both (Codex), and each must still show every kind.
const ODD_LINES = "printf 'ferry-odd-crlf one\\r\\ntwo\\r\\n'; printf 'ferry-odd-ctl \\001\\002\\033[31mred\\033[0m\\b\\n'; printf 'ferry-odd-bad \\377\\376\\300 end\\n'";
const ODD_CMD = `${ODD_LINES}; printf 'ferry-odd-long '; head -c 300000 /dev/zero | tr '\\0' x; echo ' ferry-odd-long'; ${ODD_LINES}`;
// Steps that issue more than one tool call (in one model response, or over two responses).
const STEP_CALLS = { par: 2 };
// ferry mcp step: a hyphenated word conformance/mcp.sh plants in the archive it serves.
const MCP_QUERY = process.env.MOCK_MCP_QUERY || 'FERRY-MCP-MARKER';

// ---------------------------------------------------------------- args
function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const k = a.slice(2);
      const eq = k.indexOf('=');
      if (eq >= 0) out[k.slice(0, eq)] = k.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[k] = argv[++i];
      else out[k] = '1';
    } else out._.push(a);
  }
  return out;
}

const rid = (p, n = 24) => p + crypto.randomBytes(n).toString('hex').slice(0, n);

// ---------------------------------------------------------------- normalization
function flattenContent(c) {
  if (c == null) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(flattenContent).filter((s) => s !== '').join('\n');
  if (typeof c === 'object') {
    if (typeof c.text === 'string') return c.text;
    if (c.type === 'image' || c.type === 'input_image' || c.type === 'image_url') return '[image]';
    if (c.content !== undefined) return flattenContent(c.content);
    if (typeof c.output === 'string') return c.output;
    return JSON.stringify(c);
  }
  return String(c);
}

/** How many real image parts a tool result holds (a text "[image]" placeholder is not one). */
function imageCount(c) {
  if (!Array.isArray(c)) return 0;
  return c.filter((p) => p && (p.type === 'image' || p.type === 'input_image' || p.type === 'image_url')).length;
}
const withImages = (c) => (imageCount(c) ? { images: imageCount(c) } : {});

function parseMaybeJson(s) {
  if (typeof s !== 'string') return s;
  try { return JSON.parse(s); } catch { return s; }
}

export function detectApi(path, body) {
  if (/:(stream)?generateContent(\?|$)/i.test(path) || (body && Array.isArray(body.contents))) return 'gemini';
  if (/\/messages(\?|$)/.test(path) || (body && Array.isArray(body.messages) && 'max_tokens' in body && !/chat\/completions/.test(path))) return 'anthropic';
  if (/\/responses(\?|$)/.test(path) || (body && 'input' in body)) return 'responses';
  if (/chat\/completions/.test(path)) return 'chat';
  return 'unknown';
}

// Each item: {role, kind, text?|name?, id?, input?, is_error?, msg}
// role: system | developer | user | assistant | tool (tool results always get role "tool")
export function normalize(api, body, { system = false } = {}) {
  const items = [];
  if (!body) return items;
  if (api === 'anthropic') {
    if (system && body.system) items.push({ role: 'system', kind: 'text', text: flattenContent(body.system), msg: -1 });
    (body.messages || []).forEach((m, mi) => {
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
      for (const b of blocks) {
        switch (b.type) {
          case 'text': items.push({ role: m.role, kind: 'text', text: b.text, msg: mi }); break;
          case 'thinking': items.push({ role: m.role, kind: 'thinking', text: b.thinking ?? '', msg: mi }); break;
          case 'redacted_thinking': items.push({ role: m.role, kind: 'thinking', text: '[redacted]', redacted: true, msg: mi }); break;
          case 'tool_use': case 'server_tool_use':
            items.push({ role: m.role, kind: 'tool_use', name: b.name, id: b.id, input: b.input, msg: mi }); break;
          case 'tool_result':
            items.push({ role: 'tool', kind: 'tool_result', id: b.tool_use_id, text: flattenContent(b.content), ...withImages(b.content), ...(b.is_error ? { is_error: true } : {}), msg: mi }); break;
          default: items.push({ role: m.role, kind: b.type || 'unknown', text: flattenContent(b), msg: mi });
        }
      }
    });
  } else if (api === 'responses') {
    if (system && body.instructions) items.push({ role: 'system', kind: 'text', text: body.instructions, msg: -1 });
    const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input || [];
    input.forEach((it, mi) => {
      const type = it.type || (it.role ? 'message' : 'unknown');
      switch (type) {
        case 'message': {
          const parts = typeof it.content === 'string' ? [{ type: 'input_text', text: it.content }] : it.content || [];
          for (const p of parts) {
            if (p.type === 'input_image') items.push({ role: it.role, kind: 'image', text: '[image]', msg: mi });
            else items.push({ role: it.role, kind: 'text', text: p.text ?? flattenContent(p), msg: mi });
          }
          break;
        }
        case 'reasoning': {
          const t = [...(it.summary || []).map((s) => s.text), ...((it.content || []).map((c) => c.text))].filter(Boolean).join('\n');
          items.push({ role: 'assistant', kind: 'thinking', text: t, ...(it.encrypted_content ? { encrypted: true } : {}), msg: mi });
          break;
        }
        case 'agent_message': {
          // Codex multi-agent: a message between agents (NEW_TASK to a child, FINAL_ANSWER back to the parent)
          const text = (it.content || []).map((c) => c.text ?? c.encrypted_content ?? '').join('');
          items.push({ role: /Message Type: NEW_TASK/.test(text) ? 'user' : 'agent', kind: 'text', text, msg: mi });
          break;
        }
        case 'function_call':
          items.push({ role: 'assistant', kind: 'tool_use', name: it.name, id: it.call_id, input: parseMaybeJson(it.arguments), msg: mi }); break;
        case 'custom_tool_call':
          items.push({ role: 'assistant', kind: 'tool_use', name: it.name, id: it.call_id, input: it.input, msg: mi }); break;
        case 'local_shell_call':
          items.push({ role: 'assistant', kind: 'tool_use', name: 'local_shell', id: it.call_id, input: it.action, msg: mi }); break;
        case 'function_call_output': case 'custom_tool_call_output': case 'local_shell_call_output': case 'tool_search_output':
          items.push({ role: 'tool', kind: 'tool_result', id: it.call_id, text: flattenContent(it.output), ...withImages(it.output), msg: mi }); break;
        case 'additional_tools':
          if (system) items.push({ role: it.role || 'developer', kind: 'tools', text: (it.tools || []).flatMap((t) => t.type === 'namespace' ? (t.tools || []).map((x) => `${t.name}.${x.name}`) : [t.name]).join(','), msg: mi });
          break;
        default:
          items.push({ role: it.role || 'assistant', kind: type, text: flattenContent(it), msg: mi });
      }
    });
  } else if (api === 'gemini') {
    // Gemini generateContent: contents[{role: user|model, parts[]}]; function responses travel in user-role contents
    if (system && body.systemInstruction) items.push({ role: 'system', kind: 'text', text: flattenContent(body.systemInstruction.parts || body.systemInstruction), msg: -1 });
    (body.contents || []).forEach((c, mi) => {
      const role = c.role === 'model' ? 'assistant' : c.role || 'user';
      for (const p of c.parts || []) {
        if (p.functionCall) items.push({ role: 'assistant', kind: 'tool_use', name: p.functionCall.name, id: p.functionCall.id, input: p.functionCall.args, msg: mi });
        else if (p.functionResponse) {
          const r = p.functionResponse.response;
          const text = r == null ? '' : typeof r === 'string' ? r : typeof r.output === 'string' ? r.output : typeof r.error === 'string' ? r.error : typeof r.content === 'string' ? r.content : JSON.stringify(r);
          items.push({ role: 'tool', kind: 'tool_result', id: p.functionResponse.id, name: p.functionResponse.name, text, ...(r && r.error !== undefined ? { is_error: true } : {}), msg: mi });
        } else if (p.inlineData || p.fileData) items.push({ role, kind: 'image', text: '[image]', mime: (p.inlineData || p.fileData).mimeType, msg: mi });
        else if (p.thought === true && typeof p.text === 'string') items.push({ role, kind: 'thinking', text: p.text, msg: mi });
        else if (typeof p.text === 'string') { if (p.text !== '') items.push({ role, kind: 'text', text: p.text, msg: mi }); }
        else if (p.executableCode || p.codeExecutionResult) items.push({ role, kind: 'code', text: JSON.stringify(p), msg: mi });
        else if (p.thoughtSignature && Object.keys(p).length === 1) continue;
        else items.push({ role, kind: 'unknown', text: JSON.stringify(p), msg: mi });
      }
    });
  } else if (api === 'chat') {
    (body.messages || []).forEach((m, mi) => {
      if (m.role === 'system' && !system) return;
      if (m.role === 'tool') { items.push({ role: 'tool', kind: 'tool_result', id: m.tool_call_id, text: flattenContent(m.content), ...withImages(m.content), msg: mi }); return; }
      const r = m.reasoning_content ?? m.reasoning;
      if (r) items.push({ role: m.role, kind: 'thinking', text: flattenContent(r), msg: mi });
      const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
      for (const p of parts) {
        if (p.type === 'image_url') items.push({ role: m.role, kind: 'image', text: '[image]', msg: mi });
        else if ((p.text ?? '') !== '') items.push({ role: m.role, kind: 'text', text: p.text, msg: mi });
      }
      for (const tc of m.tool_calls || []) items.push({ role: m.role, kind: 'tool_use', name: tc.function?.name, id: tc.id, input: parseMaybeJson(tc.function?.arguments), msg: mi });
    });
  }
  return items;
}

function toolsOf(api, body) {
  const out = [];
  const addResponses = (list, ns) => {
    for (const t of list || []) {
      if (t.type === 'namespace') { addResponses(t.tools, t.name); continue; }
      out.push({ name: t.name ?? t.type, type: t.type || 'function', schema: t.parameters || {}, format: t.format, description: t.description || '', namespace: ns });
    }
  };
  if (api === 'responses') {
    addResponses(body?.tools);
    // Codex (code-mode models) sends its tools as an `additional_tools` input item instead of `tools`.
    for (const it of Array.isArray(body?.input) ? body.input : []) if (it && (it.type === 'additional_tools' || it.type === 'tool_search_output')) addResponses(it.tools);
    return out;
  }
  if (api === 'gemini') {
    for (const g of body?.tools || []) for (const f of g.functionDeclarations || g.function_declarations || [])
      out.push({ name: f.name, type: 'function', schema: f.parametersJsonSchema || f.parameters || {}, description: f.description || '' });
    return out;
  }
  for (const t of body?.tools || []) {
    if (api === 'anthropic') out.push({ name: t.name, type: t.type || 'function', schema: t.input_schema || {}, description: t.description || '' });
    else out.push({ name: t.function?.name ?? t.name, type: 'function', schema: t.function?.parameters || {}, description: t.function?.description || '' });
  }
  return out;
}

// ---------------------------------------------------------------- the script
function pickTool(tools, names) {
  for (const n of names) {
    const t = tools.find((x) => (x.name || '').toLowerCase() === n);
    if (t) return t;
  }
  return null;
}
const props = (t) => Object.keys(t?.schema?.properties || {});

// Codex "code mode": the only direct tool is a freeform `exec` tool that runs JavaScript, which in turn
// calls nested tools (tools.exec_command, tools.apply_patch, ...).
function codeModeTool(tools) {
  const t = tools.find((x) => x.name === 'exec' && x.type === 'custom' && /javascript/i.test(x.description || ''));
  return t || null;
}
function codeModeCall(t, js) {
  return { name: t.name, kind: 'custom', input: js, ...(t.namespace ? { namespace: t.namespace } : {}) };
}

function shellCall(tools, cmd, why) {
  const t = pickTool(tools, ['bash', 'exec_command', 'shell_command', 'shell', 'run_shell_command', 'run_terminal_cmd', 'local_shell']);
  if (!t) {
    const cm = codeModeTool(tools);
    if (cm) return codeModeCall(cm, `const r = await tools.exec_command({ cmd: ${JSON.stringify(cmd)} });\ntext(r.output);\n`);
    return null;
  }
  if (t.type === 'local_shell') return { name: t.name, kind: 'local_shell', input: { type: 'exec', command: ['bash', '-lc', cmd] } };
  const p = props(t);
  const input = {};
  if (p.includes('command')) input.command = t.schema.properties.command.type === 'array' ? ['bash', '-lc', cmd] : cmd;
  else if (p.includes('cmd')) input.cmd = cmd;
  else input.command = cmd;
  if (p.includes('description')) input.description = why;
  return { name: t.name, kind: 'function', input };
}

function stepCall(step, tools, workdir) {
  const abs = workdir ? `${workdir.replace(/\/$/, '')}/${PROBE_FILE}` : PROBE_FILE;
  // ---- ferry mcp (conformance/mcp.sh): search the archive through `ferry mcp`, then read the first hit.
  // The client names MCP tools with a prefix (Claude Code: mcp__ferry__search_sessions).
  if (step === 'mcpsearch' || step === 'mcpread') {
    const t = tools.find((x) => new RegExp(`(^|__)${step === 'mcpsearch' ? 'search_sessions' : 'read_session'}$`).test(x.name || ''));
    if (!t) return null;
    return { name: t.name, kind: 'function', input: step === 'mcpsearch' ? { query: MCP_QUERY } : { ref: '__MCPREF__', max_chars: 4000 } };
  }
  // ---- end ferry mcp
  if (step === 'bash') return shellCall(tools, PROBE_CMD, 'Print the ferry probe marker');
  if (step === 'mcpfail' || step === 'mcpretry') {
    const t = tools.find((x) => MCP_FLAKY.test(x.name || ''));
    // Codex 0.171 defers MCP tools behind its client-executed `tool_search`: search once per turn, the
    // tools its output lists are offered from then on (toolsOf reads them from the tool_search_output item)
    // (again, up to 6 times in a turn, while the server is still starting: its tools are listed once it is up)
    if (!t && (tools.searches ?? 0) < 6 && tools.some((x) => x.type === 'tool_search')) return { name: 'tool_search', kind: 'tool_search', input: { query: 'ferry_flaky', limit: 8 } };
    if (!t) return null;
    return { name: t.name, kind: 'function', input: { token: step === 'mcpfail' ? 'ferry-mcp-first' : 'ferry-mcp-retry' }, ...(t.namespace ? { namespace: t.namespace } : {}) };
  }
  if (step === 'todo') {
    // Claude Code TodoWrite {todos:[{content,status,activeForm}]}, OpenCode todowrite, Codex update_plan {plan:[{step,status}]}
    // Claude Code 2.1.332 with CLAUDE_CODE_ENABLE_TODO_TOOLS=1 offers its task tools: TaskCreate {subject, description, activeForm}
    const t = pickTool(tools, ['todowrite', 'update_plan', 'write_todos', 'todo_write', 'taskcreate']);
    if (!t) return null;
    const ps = t.schema?.properties || {};
    if ('subject' in ps) return { name: t.name, kind: 'function', input: { subject: TODO_TEXT, description: TODO_TEXT, ...('activeForm' in ps ? { activeForm: 'Writing the conformance report' } : {}) } };
    const key = ['todos', 'plan'].find((k) => k in ps) || Object.keys(ps)[0] || 'todos';
    const itemProps = ps[key]?.items?.properties || { content: {}, status: {} };
    const item = {};
    for (const [k, v] of Object.entries(itemProps)) {
      if (/^(content|step|description|title|text)$/.test(k)) item[k] = TODO_TEXT;
      else if (k === 'activeForm') item[k] = 'Writing the conformance report';
      else if (k === 'status') item[k] = Array.isArray(v.enum) && v.enum.includes('in_progress') ? 'in_progress' : (v.enum?.[0] ?? 'in_progress');
      else if (k === 'priority') item[k] = Array.isArray(v.enum) ? (v.enum.includes('high') ? 'high' : v.enum[0]) : 'high';
      else if (k === 'id') item[k] = '1';
    }
    const input = { [key]: [item] };
    if ('explanation' in ps) input.explanation = 'FERRY-TODO plan';
    return { name: t.name, kind: 'function', input, ...(t.namespace ? { namespace: t.namespace } : {}) };
  }
  if (step === 'odd') return shellCall(tools, ODD_CMD, 'Odd output: CRLF, control bytes, invalid UTF-8, a 300 KB line');
  if (step === 'read') {
    const t = pickTool(tools, ['read', 'read_file', 'view']);
    if (t) {
      const p = props(t);
      const key = ['file_path', 'filePath', 'path'].find((k) => p.includes(k)) || 'file_path';
      return { name: t.name, kind: 'function', input: { [key]: abs } };
    }
    return shellCall(tools, `cat ${PROBE_FILE}`, 'Show the probe file');
  }
  if (step === 'edit') {
    const t = pickTool(tools, ['edit', 'apply_patch', 'str_replace_based_edit_tool', 'replace']);
    if (t && t.name.toLowerCase() === 'apply_patch') {
      const patch = `*** Begin Patch\n*** Update File: ${abs}\n@@\n ferry probe file\n-${PROBE_OLD}\n+${PROBE_NEW}\n*** End Patch\n`;
      if (t.type === 'custom') return { name: t.name, kind: 'custom', input: patch };
      return { name: t.name, kind: 'function', input: props(t).includes('input') ? { input: patch } : { patch } };
    }
    if (t && props(t).includes('edits')) {
      // Pi: edit { path, edits: [{ oldText, newText }] }
      const p = props(t);
      return { name: t.name, kind: 'function', input: { [p.includes('path') ? 'path' : 'file_path']: abs, edits: [{ oldText: PROBE_OLD, newText: PROBE_NEW }] } };
    }
    if (t) {
      const p = props(t);
      const camel = p.includes('oldString');
      const input = {};
      input[camel ? 'filePath' : p.includes('path') && !p.includes('file_path') ? 'path' : 'file_path'] = abs;
      if (p.includes('command')) input.command = 'str_replace';
      input[camel ? 'oldString' : p.includes('old_str') ? 'old_str' : 'old_string'] = PROBE_OLD;
      input[camel ? 'newString' : p.includes('new_str') ? 'new_str' : 'new_string'] = PROBE_NEW;
      if (p.includes('instruction')) input.instruction = 'Append ", ferry" to line two of the probe file.'; // Gemini CLI replace
      return { name: t.name, kind: 'function', input };
    }
    const cm = !pickTool(tools, ['bash', 'exec_command', 'shell_command', 'shell']) && codeModeTool(tools);
    if (cm) {
      const patch = `*** Begin Patch\n*** Update File: ${abs}\n@@\n ferry probe file\n-${PROBE_OLD}\n+${PROBE_NEW}\n*** End Patch\n`;
      return codeModeCall(cm, `const r = await tools.apply_patch(${JSON.stringify(patch)});\ntext(r);\n`);
    }
    return shellCall(tools, `sed -i 's/${PROBE_OLD}/${PROBE_NEW}/' ${PROBE_FILE}`, 'Edit the probe file');
  }
  if (step === 'bigout') return shellCall(tools, BIGOUT_CMD, 'Print a long listing (large tool output)');
  if (step === 'fail') return shellCall(tools, FAIL_CMD, 'A command that fails (exit 7)');
  if (step === 'par') {
    // two shell calls in ONE model response (parallel tool calls)
    const a = shellCall(tools, PAR_CMDS[0], 'First of two parallel commands');
    const b = shellCall(tools, PAR_CMDS[1], 'Second of two parallel commands');
    if (!a || !b || a.kind === 'custom') return null; // code mode runs one script per call
    return { ...a, parallel: [a, b] };
  }
  if (step === 'image') {
    const img = workdir ? `${workdir.replace(/\/$/, '')}/${IMAGE_FILE}` : IMAGE_FILE;
    const v = pickTool(tools, ['view_image']);
    if (v) {
      const p = props(v);
      return { name: v.name, kind: 'function', input: { [p.includes('path') ? 'path' : p[0] || 'path']: img } };
    }
    const t = pickTool(tools, ['read', 'read_file', 'view']);
    if (!t) return null;
    const p = props(t);
    const key = ['file_path', 'filePath', 'path'].find((k) => p.includes(k)) || 'file_path';
    return { name: t.name, kind: 'function', input: { [key]: img } };
  }
  if (step === 'wait') {
    // Codex multi-agent: wait for the agent spawned by the `agent` step (its id comes from the spawn output)
    const t = pickTool(tools, ['wait_agent', 'wait']);
    if (!t || !pickTool(tools, ['spawn_agent'])) return null;
    const input = {};
    for (const [k, v] of Object.entries(t.schema?.properties || {})) {
      if (/timeout/i.test(k)) input[k] = v.type === 'integer' || v.type === 'number' ? 60000 : '60000';
      else if (/id|target|agent|name/i.test(k)) input[k] = v.type === 'array' ? ['__SPAWNED__'] : '__SPAWNED__';
    }
    return { name: t.name, kind: 'function', input, ...(t.namespace ? { namespace: t.namespace } : {}) };
  }
  if (step === 'agent' && pickTool(tools, ['spawn_agent']) && !pickTool(tools, ['agent', 'task'])) {
    const t = pickTool(tools, ['spawn_agent']);
    const input = {};
    const ps = t.schema?.properties || {};
    for (const [k, v] of Object.entries(ps)) {
      if (/^(message|prompt|task|instructions?)$/i.test(k)) input[k] = v.type === 'array' ? [{ type: 'text', text: SUBAGENT_PROMPT }] : SUBAGENT_PROMPT;
    }
    if (!Object.keys(input).length) input.message = SUBAGENT_PROMPT;
    for (const k of ['task_name', 'name']) if (k in ps) input[k] = 'ferry_probe';
    if ('agent_type' in ps) { const en = ps.agent_type.enum; input.agent_type = Array.isArray(en) && en.length ? (en.includes('default') ? 'default' : en[0]) : 'default'; }
    if ('fork_context' in ps) input.fork_context = false;
    if ('fork_turns' in ps) input.fork_turns = 'none';
    return { name: t.name, kind: 'function', input, ...(t.namespace ? { namespace: t.namespace } : {}) };
  }
  if (step === 'agent') {
    const t = pickTool(tools, ['agent', 'task', 'invoke_agent']);
    if (!t) return null;
    const p = props(t);
    const input = {};
    if (p.includes('agent_name')) input.agent_name = 'generalist'; // Gemini CLI invoke_agent
    if (p.includes('description')) input.description = 'Ferry subagent probe';
    input.prompt = SUBAGENT_PROMPT;
    if (p.includes('run_in_background')) input.run_in_background = false; // Claude Code defaults to async agents
    if (p.includes('subagent_type')) {
      const en = t.schema.properties.subagent_type.enum;
      input.subagent_type = Array.isArray(en) && en.length ? (en.includes('general-purpose') ? 'general-purpose' : en.includes('general') ? 'general' : en[0]) : t.name === 'task' ? 'general' : 'general-purpose';
    }
    // Copilot CLI task: {name, agent_type (enum), mode: sync|background} are required / wanted
    if (p.includes('agent_type')) {
      const en = t.schema.properties.agent_type.enum;
      input.agent_type = Array.isArray(en) && en.length ? (en.includes('general-purpose') ? 'general-purpose' : en[0]) : 'general-purpose';
    }
    if (p.includes('name') && !input.name) input.name = 'ferry-subagent';
    if (p.includes('mode') && Array.isArray(t.schema.properties.mode?.enum) && t.schema.properties.mode.enum.includes('sync')) input.mode = 'sync';
    return { name: t.name, kind: 'function', input };
  }
  return null;
}

const STEP_TEXT = {
  bash: "I'll run the ferry probe command first.",
  read: 'The probe printed its marker. Now I will read the probe file.',
  edit: 'Now I will make a small edit to the probe file.',
  bigout: 'Next, a command with a large output.',
  fail: 'First a command that is expected to fail.',
  agent: 'Finally, I will ask a subagent to confirm.',
  par: 'Two independent commands: I will run them in parallel.',
  image: 'Now I will look at the image file.',
  wait: 'Waiting for the subagent to finish.',
  mcpfail: 'Calling the flaky MCP tool.', // (the text never names it: check-resume's plain marker ferry_flaky is the call's)
  mcpretry: 'The MCP tool failed; retrying it once.',
  todo: 'Recording the plan in the todo list.',
  odd: 'Now a command with odd output.',
};
const STEP_THINKING = {
  bash: 'The user wants the ferry probe. Plan: run echo ferry-probe, then read and edit probe.txt.',
};

export function decide(api, body, cfg) {
  const tools = toolsOf(api, body);
  const items = normalize(api, body);
  if (api === 'responses' && Array.isArray(body?.input) && body.input.length && body.input[body.input.length - 1]?.type === 'compaction_trigger') {
    // Codex "remote compaction v2": expects exactly one compaction output item
    return { step: 'compaction', text: '', compaction: true };
  }
  {
    const lastUser = items.filter((x) => x.role === 'user' && x.kind === 'text').pop();
    if (lastUser && /CONTEXT CHECKPOINT COMPACTION|create a detailed summary|Do not mention the summary process|summary of the conversation|summarize the conversation|Provide a detailed prompt for continuing|<summary>/i.test(lastUser.text || '') && (items.some((x) => x.role === 'assistant') || /<conversation>[\s\S]*<\/conversation>/.test(lastUser.text || ''))) {
      // (OpenCode 1.18.33 sends the whole conversation as one user message inside <conversation> tags.)
      return { step: 'summary', text: `<summary>${MARK_SUMMARY}: the user ran the ferry probe steps (parallel echo, image read, subagent).</summary>` };
    }
  }
  if (!tools.length) {
    return { step: 'side', text: 'Ferry probe session' };
  }
  // message-level view: which messages are turn starts
  const byMsg = new Map();
  for (const it of items) {
    if (!byMsg.has(it.msg)) byMsg.set(it.msg, []);
    byMsg.get(it.msg).push(it);
  }
  let lastStart = -1;
  for (const [mi, its] of byMsg) {
    // OpenCode sends an image a tool returned as a user message of its own ("Attached media from tool result:")
    const hasUserText = its.some((x) => x.role === 'user' && x.kind === 'text' && !/^Attached media from tool result/.test(x.text || ''));
    const hasResult = its.some((x) => x.kind === 'tool_result');
    if (hasUserText && !hasResult && mi > lastStart) lastStart = mi;
  }
  const after = items.filter((x) => x.msg > lastStart);
  const before = items.filter((x) => x.msg < lastStart);
  const toolUsesAfter = after.filter((x) => x.kind === 'tool_use').length;
  const priorAssistant = before.some((x) => x.role === 'assistant');
  const startText = items.filter((x) => x.msg === lastStart && x.kind === 'text').map((x) => x.text).join('\n');
  if (startText.includes('FERRY-SUBAGENT') && !priorAssistant && toolUsesAfter === 0) {
    // Gemini CLI local sub-agents finish by calling complete_task (their answer is its argument)
    const ct = pickTool(tools, ['complete_task']);
    if (ct) {
      const p = props(ct);
      const key = ['result', 'output', 'response', 'answer', 'summary'].find((k) => p.includes(k)) || p[0] || 'result';
      const ks = ct.schema.properties?.[key];
      // Gemini CLI 0.61: complete_task {result: {response: string}}
      const val = ks && ks.type === 'object' ? { [Object.keys(ks.properties || {}).find((k) => ks.properties[k].type === 'string') || 'response']: MARK_SUBAGENT } : MARK_SUBAGENT;
      return { step: 'subagent', text: MARK_SUBAGENT, call: { name: ct.name, kind: 'function', input: { [key]: val }, id: api === 'anthropic' ? rid('toolu_mock', 24) : rid('call_mock', 24) } };
    }
    return { step: 'subagent', text: MARK_SUBAGENT };
  }
  if (startText.includes('FERRY-SUBAGENT') && !priorAssistant && toolUsesAfter > 0) {
    return { step: 'subagent-final', text: MARK_SUBAGENT };
  }
  if (priorAssistant && toolUsesAfter === 0 && /SYSTEM NOTIFICATION|<task-notification>/.test(startText)) {
    // a client-generated follow-up (e.g. Claude Code's background-task notification), not a user turn
    return { step: 'notification', text: `Noted. ${MARK_DONE}` };
  }
  // MOCK_TURN_STEPS=1 (gen mode): a later turn of a session runs the scripted steps too (scenario41.sh turns)
  if (priorAssistant && toolUsesAfter === 0 && !(cfg.turnSteps && cfg.mode !== 'resume')) {
    const sawProbe = before.some((x) => x.kind === 'tool_result' && (x.text || '').includes(PROBE_OUT));
    const nUse = before.filter((x) => x.kind === 'tool_use').length;
    return {
      step: 'resumed',
      text: `${MARK_RESUMED}: I can see the earlier conversation (${before.length} items, ${nUse} tool calls); probe output in history: ${sawProbe ? 'yes' : 'no'}.`,
    };
  }
  if (cfg.mode === 'resume') {
    // resume mode never calls tools: a turn with no earlier assistant content means the client did not load the history
    return { step: 'resumed-empty', text: `${MARK_RESUMED}-EMPTY: no earlier conversation is visible to me.` };
  }
  tools.searches = after.filter((x) => x.kind === 'tool_search_call').length;
  // steps this client has a tool for (stable across one session's requests, so indexing by count works)
  const steps = cfg.steps.filter((st) => stepCall(st, tools, cfg.workdir));
  let k = 0;
  for (let used = 0; used < toolUsesAfter && k < steps.length; k++) used += STEP_CALLS[steps[k]] || 1;
  if (k >= steps.length || toolUsesAfter >= 16) {
    return { step: 'final', text: `All done. ${MARK_DONE}` };
  }
  const step = steps[k];
  let call = stepCall(step, tools, cfg.workdir);
  if (step === 'wait') {
    // the spawned agent's id: from the last tool result that names one
    const outs = after.filter((x) => x.kind === 'tool_result').map((x) => x.text || '');
    let id = '';
    for (const o of outs) { const m = /"(?:agent_id|id|task_name|agent_name)"\s*:\s*"([^"]+)"/.exec(o) || /\b([0-9a-f]{8}-[0-9a-f-]{27,})\b/.exec(o); if (m) id = m[1]; }
    call = JSON.parse(JSON.stringify(call).replaceAll('__SPAWNED__', id || 'ferry_probe'));
  }
  // ---- ferry mcp: the ref of the first hit, from the search result the client passed back.
  if (step === 'mcpread') {
    const out = after.filter((x) => x.kind === 'tool_result').map((x) => x.text || '').join('\n');
    const m = /([a-z][a-z0-9-]*:[^\s"#]+#\d+)/.exec(out);
    call = JSON.parse(JSON.stringify(call).replaceAll('__MCPREF__', m ? m[1] : 'no-ref-in-search-result'));
  }
  // ---- end ferry mcp
  const idOf = () => (api === 'anthropic' ? rid('toolu_mock', 24) : rid('call_mock', 24));
  const calls = (call.parallel || [call]).map(({ parallel, ...c }) => ({ ...c, id: idOf() }));
  return {
    // a repeated tool search waits a little: the MCP server it looks for is still starting
    ...(call.kind === 'tool_search' && tools.searches > 0 ? { delayMs: 4000 } : {}),
    step,
    text: STEP_TEXT[step] || `Step ${step}.`,
    thinking: cfg.thinking && toolUsesAfter === 0 ? STEP_THINKING[step] : undefined,
    call: calls[0],
    calls,
  };
}

// ---------------------------------------------------------------- wire writers
function sse(res, event, data) {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}
function sseHeaders(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}
const approxTokens = (body) => Math.max(1, Math.round(JSON.stringify(body || {}).length / 4));
// MOCK_REPORT_TOKENS=N: report at least N input tokens once the history holds a tool result, so that
// clients that auto-compact by reported usage (Codex, OpenCode) compact once the scripted steps are done.
const reportedTokens = (body) => {
  const n = Number(process.env.MOCK_REPORT_TOKENS || 0);
  const t = approxTokens(body);
  if (!n) return t;
  const s = JSON.stringify(body || {});
  return s.includes(MARK_DONE) && !s.includes(MARK_SUMMARY) ? Math.max(t, n) : t;
};

function anthropicReply(req, res, body, d) {
  const model = body.model || 'mock-model';
  const content = [];
  if (d.thinking) content.push({ type: 'thinking', thinking: d.thinking, signature: 'mock-signature-' + crypto.randomBytes(8).toString('hex') });
  content.push({ type: 'text', text: d.text });
  for (const c of d.calls || (d.call ? [d.call] : [])) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
  const usage = { input_tokens: reportedTokens(body), output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const msg = { id: rid('msg_mock'), type: 'message', role: 'assistant', model, content, stop_reason: d.call ? 'tool_use' : 'end_turn', stop_sequence: null, usage };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid('req_mock') });
    res.end(JSON.stringify(msg));
    return;
  }
  sseHeaders(res);
  sse(res, 'message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((b, i) => {
    if (b.type === 'thinking') {
      sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'thinking', thinking: '', signature: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'thinking_delta', thinking: b.thinking } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'signature_delta', signature: b.signature } });
    } else if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
      if (i === 0) sse(res, 'ping', { type: 'ping' });
      const half = Math.ceil(b.text.length / 2);
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text.slice(0, half) } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text.slice(half) } });
    } else if (b.type === 'tool_use') {
      sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function responsesReply(req, res, body, d) {
  const model = body.model || 'mock-model';
  const respId = rid('resp_mock');
  const created = Math.floor(Date.now() / 1000);
  const output = [];
  if (d.compaction) output.push({ type: 'compaction', id: rid('cmp_mock'), encrypted_content: 'mock-compaction-' + crypto.randomBytes(8).toString('hex') });
  else if (d.thinking) output.push({ type: 'reasoning', id: rid('rs_mock'), summary: [{ type: 'summary_text', text: d.thinking }], encrypted_content: 'mock-encrypted-' + crypto.randomBytes(8).toString('hex') });
  if (!d.compaction) output.push({ type: 'message', id: rid('msg_mock'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: d.text, annotations: [] }] });
  for (const c of d.calls || (d.call ? [d.call] : [])) {
    if (c.kind === 'custom') output.push({ type: 'custom_tool_call', id: rid('ctc_mock'), status: 'completed', call_id: c.id, name: c.name, input: c.input });
    else if (c.kind === 'tool_search') output.push({ type: 'tool_search_call', id: rid('tsc_mock'), status: 'completed', call_id: c.id, execution: 'client', arguments: c.input });
    else if (c.kind === 'local_shell') output.push({ type: 'local_shell_call', id: rid('lsh_mock'), status: 'completed', call_id: c.id, action: c.input });
    else output.push({ type: 'function_call', id: rid('fc_mock'), status: 'completed', call_id: c.id, name: c.name, arguments: JSON.stringify(c.input), ...(c.namespace ? { namespace: c.namespace } : {}) });
  }
  const inTok = reportedTokens(body);
  const usage = { input_tokens: inTok, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: d.thinking ? 5 : 0 }, total_tokens: inTok + 20 };
  const base = { id: respId, object: 'response', created_at: created, model, parallel_tool_calls: true, tool_choice: 'auto', tools: [], error: null, incomplete_details: null };
  if (body.stream === false) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, status: 'completed', output, usage }));
    return;
  }
  sseHeaders(res);
  let seq = 0;
  const ev = (type, o) => sse(res, type, { type, sequence_number: seq++, ...o });
  ev('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
  output.forEach((item, oi) => {
    if (item.type === 'reasoning') {
      ev('response.output_item.added', { output_index: oi, item: { ...item, summary: [] } });
      ev('response.reasoning_summary_part.added', { item_id: item.id, output_index: oi, summary_index: 0, part: { type: 'summary_text', text: '' } });
      ev('response.reasoning_summary_text.delta', { item_id: item.id, output_index: oi, summary_index: 0, delta: item.summary[0].text });
      ev('response.reasoning_summary_text.done', { item_id: item.id, output_index: oi, summary_index: 0, text: item.summary[0].text });
      ev('response.reasoning_summary_part.done', { item_id: item.id, output_index: oi, summary_index: 0, part: item.summary[0] });
    } else if (item.type === 'message') {
      const text = item.content[0].text;
      ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id: item.id, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      const half = Math.ceil(text.length / 2);
      ev('response.output_text.delta', { item_id: item.id, output_index: oi, content_index: 0, delta: text.slice(0, half) });
      ev('response.output_text.delta', { item_id: item.id, output_index: oi, content_index: 0, delta: text.slice(half) });
      ev('response.output_text.done', { item_id: item.id, output_index: oi, content_index: 0, text });
      ev('response.content_part.done', { item_id: item.id, output_index: oi, content_index: 0, part: item.content[0] });
    } else if (item.type === 'function_call') {
      ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', arguments: '' } });
      ev('response.function_call_arguments.delta', { item_id: item.id, output_index: oi, delta: item.arguments });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: oi, arguments: item.arguments });
    } else if (item.type === 'custom_tool_call') {
      ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', input: '' } });
      ev('response.custom_tool_call_input.delta', { item_id: item.id, output_index: oi, delta: item.input });
      ev('response.custom_tool_call_input.done', { item_id: item.id, output_index: oi, input: item.input });
    } else {
      ev('response.output_item.added', { output_index: oi, item });
    }
    ev('response.output_item.done', { output_index: oi, item });
  });
  ev('response.completed', { response: { ...base, status: 'completed', output, usage } });
  res.end();
}

function chatReply(req, res, body, d) {
  const model = body.model || 'mock-model';
  const id = rid('chatcmpl-mock');
  const created = Math.floor(Date.now() / 1000);
  const inTok = reportedTokens(body);
  const usage = { prompt_tokens: inTok, completion_tokens: 20, total_tokens: inTok + 20 };
  const cs = d.calls || (d.call ? [d.call] : []);
  const toolCalls = cs.length ? cs.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: typeof c.input === 'string' ? JSON.stringify({ input: c.input }) : JSON.stringify(c.input) } })) : undefined;
  const finish = d.call ? 'tool_calls' : 'stop';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: d.text, ...(d.thinking ? { reasoning_content: d.thinking } : {}), ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }], usage }));
    return;
  }
  sseHeaders(res);
  const chunk = (delta, finish_reason = null, extra = {}) => sse(res, null, { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra });
  chunk({ role: 'assistant', content: '' });
  if (d.thinking) chunk({ reasoning_content: d.thinking });
  const half = Math.ceil(d.text.length / 2);
  chunk({ content: d.text.slice(0, half) });
  chunk({ content: d.text.slice(half) });
  if (toolCalls) chunk({ tool_calls: toolCalls.map((tc, index) => ({ index, ...tc })) });
  chunk({}, finish);
  if (body.stream_options?.include_usage) sse(res, null, { id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  sse(res, null, '[DONE]');
  res.end();
}

// A JSON value for a (JSON-)schema: Gemini CLI's side requests (model router, next-speaker check, ...)
// ask for responseMimeType application/json; enums get their first value (next_speaker -> "user").
function jsonForSchema(sc, depth = 0) {
  if (!sc || depth > 6) return null;
  const type = String(sc.type || (sc.properties ? 'object' : 'string')).toLowerCase();
  if (Array.isArray(sc.enum) && sc.enum.length) return sc.enum[0];
  if (type === 'object') { const o = {}; for (const [k, v] of Object.entries(sc.properties || {})) o[k] = jsonForSchema(v, depth + 1); return o; }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return 0;
  return 'mock';
}

function geminiReply(req, res, body, d, path) {
  const model = (/models\/([^:/?]+)/.exec(path) || [])[1] || 'mock-model';
  const gc = body.generationConfig || body.config || {};
  let text = d.text;
  if (!(d.calls || d.call) && /json/i.test(gc.responseMimeType || '')) {
    const sc = gc.responseJsonSchema || gc.responseSchema;
    text = JSON.stringify(sc ? jsonForSchema(sc) : { reasoning: 'mock', answer: d.text });
  }
  const parts = [];
  const sig = () => 'mock-thought-signature-' + crypto.randomBytes(6).toString('hex');
  if (d.thinking) parts.push({ text: d.thinking, thought: true });
  if (text) parts.push({ text });
  const calls = d.calls || (d.call ? [d.call] : []);
  calls.forEach((c, i) => parts.push({ functionCall: { name: c.name, args: typeof c.input === 'string' ? { input: c.input } : c.input, id: c.id }, ...(i === 0 ? { thoughtSignature: sig() } : {}) }));
  const inTok = d.usage?.input ?? reportedTokens(body);
  const usageMetadata = { promptTokenCount: inTok, candidatesTokenCount: 20, totalTokenCount: inTok + 20, ...(d.thinking ? { thoughtsTokenCount: 5 } : {}) };
  const cand = (ps, fin) => ({ candidates: [{ content: { role: 'model', parts: ps }, ...(fin ? { finishReason: 'STOP' } : {}), index: 0 }], usageMetadata, modelVersion: model, responseId: rid('mockresp', 16) });
  if (!/streamGenerateContent/i.test(path)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(cand(parts, true)));
    return;
  }
  sseHeaders(res);
  // one chunk per part (thought, text halves, calls), finishReason on the last
  const chunks = [];
  for (const p of parts) {
    if (typeof p.text === 'string' && !p.thought && p.text.length > 1) {
      const half = Math.ceil(p.text.length / 2);
      chunks.push([{ text: p.text.slice(0, half) }], [{ text: p.text.slice(half) }]);
    } else chunks.push([p]);
  }
  chunks.forEach((ps, i) => sse(res, null, cand(ps, i === chunks.length - 1)));
  res.end();
}

function modelsReply(res) {
  const ids = ['mock-model', 'claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5', 'gpt-5.1-codex'];
  const data = ids.map((id) => ({ id, object: 'model', type: 'model', display_name: id, created: 1700000000, created_at: '2025-01-01T00:00:00Z', owned_by: 'ferry-mock' }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data, models: data.map((m) => ({ slug: m.id, display_name: m.id })), has_more: false, first_id: ids[0], last_id: ids[ids.length - 1] }));
}

// ---------------------------------------------------------------- server
function serve(opts) {
  const cfg = {
    host: opts.host || process.env.MOCK_HOST || '127.0.0.1',
    port: Number(opts.port ?? process.env.MOCK_PORT ?? 8765),
    log: opts.log || process.env.MOCK_LOG || 'mock-requests.jsonl',
    workdir: opts.workdir || process.env.MOCK_WORKDIR || '',
    steps: String(opts.steps || process.env.MOCK_STEPS || 'bash,read,edit,bigout,agent').split(',').map((s) => s.trim()).filter(Boolean),
    thinking: String(opts.thinking ?? process.env.MOCK_THINKING ?? '1') !== '0',
    readyFile: opts['ready-file'] || process.env.MOCK_READY_FILE || '',
    mode: opts.mode || process.env.MOCK_MODE || 'gen',
    turnSteps: process.env.MOCK_TURN_STEPS === '1',
  };
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = raw; }
      const path = req.url || '/';
      const rec = { seq: seq++, ts: new Date().toISOString(), method: req.method, path, headers: req.headers };
      let handler = null;
      let reply = null;
      try {
        if (req.method === 'POST' && /\/messages\/count_tokens/.test(path)) {
          reply = { kind: 'count_tokens' };
          handler = () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ input_tokens: approxTokens(body) })); };
        } else if (req.method === 'POST' && /:countTokens(\?|$)/i.test(path)) {
          reply = { kind: 'count_tokens' };
          handler = () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ totalTokens: approxTokens(body) })); };
        } else if (req.method === 'POST' && /:embedContent|:batchEmbedContents/i.test(path)) {
          reply = { kind: 'embed' };
          handler = () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ embedding: { values: [0, 0, 0] }, embeddings: [{ values: [0, 0, 0] }] })); };
        } else if (req.method === 'POST' && /:(stream)?generateContent(\?|$)/i.test(path)) {
          const d = decide('gemini', body, cfg);
          reply = { api: 'gemini', ...d };
          handler = () => geminiReply(req, res, body, d, path);
        } else if (req.method === 'POST' && /\/messages(\?|$)/.test(path)) {
          const d = decide('anthropic', body, cfg);
          reply = { api: 'anthropic', ...d };
          handler = () => anthropicReply(req, res, body, d);
        } else if (req.method === 'POST' && /\/responses(\?|$)/.test(path)) {
          const d = decide('responses', body, cfg);
          reply = { api: 'responses', ...d };
          handler = () => responsesReply(req, res, body, d);
        } else if (req.method === 'POST' && /\/chat\/completions(\?|$)/.test(path)) {
          const d = decide('chat', body, cfg);
          reply = { api: 'chat', ...d };
          handler = () => chatReply(req, res, body, d);
        } else if (req.method === 'GET' && /\/models(\?|$)/.test(path)) {
          reply = { kind: 'models' };
          handler = () => modelsReply(res);
        } else {
          reply = { kind: '404' };
          handler = () => { res.writeHead(404, { 'content-type': 'application/json' }); res.end(JSON.stringify({ error: { type: 'not_found', message: `mock: no route for ${req.method} ${path}` } })); };
        }
      } catch (e) {
        reply = { kind: 'error', error: String(e && e.stack || e) };
        handler = () => { res.writeHead(500, { 'content-type': 'application/json' }); res.end(JSON.stringify({ error: { type: 'mock_error', message: String(e) } })); };
      }
      rec.reply = reply;
      rec.body = body;
      try { fs.appendFileSync(cfg.log, JSON.stringify(rec) + '\n'); } catch (e) { process.stderr.write(`mock: cannot write log: ${e}\n`); }
      if (reply && reply.delayMs) setTimeout(handler, reply.delayMs);
      else handler();
    });
  });
  // Codex may try a websocket upgrade on /responses; refuse cleanly so it falls back to HTTP.
  server.on('upgrade', (req, socket) => {
    try { fs.appendFileSync(cfg.log, JSON.stringify({ seq: seq++, ts: new Date().toISOString(), method: 'UPGRADE', path: req.url, headers: req.headers, reply: { kind: 'upgrade-refused' } }) + '\n'); } catch {}
    socket.end('HTTP/1.1 426 Upgrade Required\r\ncontent-length: 0\r\n\r\n');
  });
  server.listen(cfg.port, cfg.host, () => {
    const port = server.address().port;
    process.stderr.write(`mock-model-server listening on http://${cfg.host}:${port} log=${cfg.log} steps=${cfg.steps.join(',')}\n`);
    if (cfg.readyFile) fs.writeFileSync(cfg.readyFile, String(port));
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// ---------------------------------------------------------------- normalize subcommand
// Picks a logged model request and prints its history.
//   --select main (default): the first request that offered tools and is a turn start
//                            whose reply was "resumed" (falls back to the first tool-offering request)
//   --select last: last model request; --select all: every model request; --select N: the request with seq N
function normalizeCmd(file, opts) {
  const recs = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const model = recs.filter((r) => r.reply && r.reply.api);
  const sel = opts.select || 'main';
  const strip = (its) => its.map(({ msg, ...rest }) => rest);
  const one = (r) => strip(normalize(r.reply.api, r.body, { system: !!opts.system }));
  let out;
  if (sel === 'all') out = model.map((r) => ({ seq: r.seq, api: r.reply.api, path: r.path, reply: r.reply.step, history: one(r) }));
  else {
    let r;
    if (sel === 'last') r = model[model.length - 1];
    else if (sel.startsWith('step:')) r = model.filter((x) => x.reply.step === sel.slice(5)).pop();
    else if (/^\d+$/.test(sel)) r = recs.find((x) => x.seq === Number(sel));
    else r = model.find((x) => x.reply.step === 'resumed') || model.find((x) => x.reply.step === 'resumed-empty') || model.find((x) => x.reply.step !== 'side');
    if (!r) { process.stderr.write('normalize: no matching model request in log\n'); process.exit(2); }
    out = opts.meta ? { seq: r.seq, api: r.reply.api, path: r.path, model: r.body?.model, reply: r.reply, history: one(r) } : one(r);
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

const args = parseArgs(process.argv.slice(2));
const cmd = args._[0] || 'serve';
if (cmd === 'serve') serve(args);
else if (cmd === 'normalize') normalizeCmd(args._[1], args);
else { process.stderr.write(`unknown command ${cmd}\n`); process.exit(2); }
