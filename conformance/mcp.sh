#!/usr/bin/env bash
# mcp.sh OUTDIR
#
# `ferry mcp` with a real agent: Claude Code, given the server with --mcp-config, asked by the
# scripted model (MOCK_STEPS=mcpsearch,mcpread) to call search_sessions for a hyphenated word and
# then read_session on the first hit's ref. The archive it serves is built here by `ferry archive`
# from the sample stores plus one session written into a Claude Code store by ferry, holding the
# word FERRY-MCP-MARKER and a random GitHub-token-shaped credential. Checks, in the model requests
# the mock logged, that both tool results reached the model: the search hit's ref, and the
# conversation with the credential redacted. ENABLE_TOOL_SEARCH=false: Claude Code otherwise defers MCP
# tools behind its ToolSearch tool, which the scripted model does not drive. Everything runs in the loopback-only namespace; ferry
# is started there by Claude Code, by absolute paths (node and bin/ferry.js).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib/common.sh"

[ $# -ge 1 ] || die "usage: mcp.sh OUTDIR"
OUT="$(mkdir -p "$1" && cd "$1" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
NODE="$(command -v node)"
FERRY="$ROOT/bin/ferry.js"
[ -f "$ROOT/dist/ferry.mjs" ] || die "build ferry first (npm run build)"
need node; need unshare; need jq
[ -x "$BIN/claude" ] || die "Claude Code not installed in $CLIENTS_DIR (run setup.sh)"

rm -rf "$OUT/archive-home" "$OUT/claude"
mkdir -p "$OUT/claude/home" "$OUT/claude/ws"
cp -r "$ROOT/fixtures/home" "$OUT/archive-home"
A="$OUT/archive-home"
TOKEN="ghp_$(head -c 200 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 36)"
SID=ferry:5e0c0000-0000-4000-8000-00000000c0de
{
  echo '{"kind":"stream","ferry":"1.0","producer":"conformance/mcp.sh"}'
  echo '{"kind":"session","ferry":"1.0","id":"'$SID':session","sid":"'$SID'","source":{"harness":"ferry","locator":{}},"native_id":"5e0c0000-0000-4000-8000-00000000c0de","cwd":"/home/dev/mcp-proj","title":"Deploy key rotation","created_at":"2026-11-30T10:00:00.000Z","updated_at":"2026-11-30T10:30:00.000Z"}'
  echo '{"kind":"message","sid":"'$SID'","id":"'$SID':m1","ts":"2026-11-30T10:00:01.000Z","role":"user","blocks":[{"type":"text","text":"The deploy failed with FERRY-MCP-MARKER in the log; my token is '$TOKEN', please check probe.txt"}]}'
  echo '{"kind":"message","sid":"'$SID'","id":"'$SID':m2","ts":"2026-11-30T10:00:02.000Z","parent":"'$SID':m1","role":"assistant","blocks":[{"type":"text","text":"Rotated the key and re-ran the deploy with --force: FERRY-MCP-FIXED."}]}'
  echo '{"kind":"end","sid":"'$SID'","id":"'$SID':end","complete":true}'
} > "$OUT/planted.jsonl"
"$NODE" "$FERRY" write --to claude-code --home "$A" < "$OUT/planted.jsonl" > "$OUT/write.out"
"$NODE" "$FERRY" --home "$A" archive --quiet 2> "$OUT/archive.err"
printf '%s\n' "$TOKEN" > "$OUT/planted-token.txt"

jq -n --arg node "$NODE" --arg ferry "$FERRY" --arg home "$A" \
  '{mcpServers: {ferry: {type: "stdio", command: $node, args: [$ferry, "--home", $home, "mcp"]}}}' > "$OUT/mcp-config.json"

d="$OUT/claude" log="$OUT/claude/mock-requests.jsonl"
rc=0
( cd "$d/ws" && MOCK_STEPS=mcpsearch,mcpread run_in_netns "$log" "$d/ws" gen "$d/client.out" "$d/client.err" -- \
    env -i $(claude_env "$d/home") ENABLE_TOOL_SEARCH=false "$BIN/claude" -p "FERRY-MCP: how did we fix the deploy failure with FERRY-MCP-MARKER?" \
    --mcp-config "$OUT/mcp-config.json" --strict-mcp-config --dangerously-skip-permissions --output-format json ) || rc=$?

# What reached the model: the tool results in the last request it was sent.
node "$HERE/mock-model-server.mjs" normalize "$log" --select last > "$OUT/last-request.json"
jq -r '.. | objects | select(.kind? == "tool_result") | .text' "$OUT/last-request.json" > "$OUT/tool-results.txt" || true
steps="$(jq -r 'select(.reply.step) | .reply.step' "$log" | paste -sd, -)"
ok=1
grep -q 'FERRY-MCP-MARKER' "$OUT/tool-results.txt" || { echo "mcp: the marker did not reach the model" >&2; ok=0; }
grep -qE 'claude-code:[^ ]+#[0-9]+' "$OUT/tool-results.txt" || { echo "mcp: no REF#N in the search result" >&2; ok=0; }
grep -q 'FERRY-MCP-FIXED' "$OUT/tool-results.txt" || { echo "mcp: read_session's conversation did not reach the model" >&2; ok=0; }
grep -q "$TOKEN" "$OUT/tool-results.txt" "$log" && { echo "mcp: the planted credential reached the model" >&2; ok=0; }
grep -qi 'REDACTED' "$OUT/tool-results.txt" || { echo "mcp: no redaction placeholder in what the model saw" >&2; ok=0; }
called="$(jq -r '.. | objects | select(.kind? == "tool_use") | .name' "$OUT/last-request.json" | paste -sd, -)"
printf 'claude-code %s rc=%s steps=%s tools=%s results=%s lines ok=%s\n' "$(client_version claude-code)" "$rc" "$steps" "$called" "$(wc -l < "$OUT/tool-results.txt")" "$ok"
[ "$rc" -eq 0 ] && [ "$ok" -eq 1 ]
