#!/usr/bin/env bash
# scenario41.sh [OUTDIR]   (issue #41: a long, branching genuine session per client)
#
# Each real client, inside the loopback-only namespace, in a non-ASCII working directory
# (OUTDIR/gen/<client>/wörk-démo), runs six turns against the scripted mock (MOCK_TURN_STEPS=1, so every
# turn runs its own steps):
#   T1 a prompt with an attached image (Claude Code --input-format stream-json with an image block,
#      Codex exec --image FILE, OpenCode run -f FILE), then the probe command
#   T2 the project's own MCP stdio server (mcp-fail-server.mjs): ferry_flaky fails, then is retried
#   T3 the todo/plan tool (Claude Code TodoWrite with CLAUDE_CODE_ENABLE_TODO_TOOLS=1, Codex update_plan,
#      OpenCode todowrite)
#   T4 a shell command that exits 7, then the probe command as the retry
#   T5 a command whose output holds CRLF, control bytes, invalid UTF-8 and a 300 KB line
#   T6 a plain read of probe.txt
# then forks the session with the client's own fork command (as fork.sh). The session and its fork
# are converted by ferry into every other client, landed (OpenCode/Kilo import) and resumed with the
# real client (check-resume.sh). Expected markers per source = those the source client resumes its own
# session / fork with, plus @error:ferry-fail and @error:ferry-mcp-fail into Claude Code (the only wire
# with an error flag). Prints the source x target matrix with session ids, kept/total markers.
# Env: CLIENTS (default claude-code codex-classic opencode), TARGETS (default CLIENTS; wave-3 ids work),
#      SOURCES ("session fork", default both), NO_GEN=1 (reuse OUTDIR/gen), NO_BUILD=1.
# Sources are independent: CLIENTS=x runs for one client can run in parallel on one OUTDIR (each
# client run has its own network namespace); the matrix printed at the end is every OUTDIR/row-*.txt.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
. "$HERE/lib/common.sh"
OUT="${1:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-scenario41-démo.XXXXXX")}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
CLIENTS=(${CLIENTS:-claude-code codex-classic opencode})
TARGETS=(${TARGETS:-claude-code codex-classic opencode})
SOURCES=(${SOURCES:-session fork})
FERRY=(node "$ROOT/bin/ferry.js")
. "$HERE/lib/convert.sh"
NODE="$(command -v node)"
SERVER="$HERE/mcp-fail-server.mjs"
# OpenCode joins argv words itself: prompts are passed as separate words, so no quotes or shell metacharacters.
TURNS=(
  "FERRY-T1: look at the attached image, then run the probe command."
  "FERRY-T2: call the flaky MCP tool and retry it if it fails."
  "FERRY-T3: record the plan in your todo list."
  "FERRY-T4: run the failing command, then the probe again."
  "FERRY-T5: print the odd output."
  "FERRY-T6: read probe.txt and finish."
)
STEPS=("bash" "mcpfail,mcpretry" "todo" "fail,bash" "odd" "read")
FORK_PROMPT="FERRY-FORK: one more turn in the fork."
# (no prompt names the tool: the plain marker ferry_flaky must come from the call itself, its name or input)
CANDIDATES=(
  "@user:FERRY-T1" "@user:FERRY-T2" "@user:FERRY-T3" "@user:FERRY-T4" "@user:FERRY-T5" "@user:FERRY-T6"
  "@image:" "@result:ferry-probe"
  "ferry_flaky" "@result:ferry-mcp-fail" "@error:ferry-mcp-fail" "@result:ferry-mcp-ok"
  "FERRY-TODO"
  "@result:ferry-fail" "@error:ferry-fail"
  "@result:ferry-odd-crlf" "@result:ferry-odd-ctl" "@result:ferry-odd-bad" "@result:ferry-odd-long"
  "@result:ferry probe file" "@assistant:FERRY-DONE"
)



# configure CLIENT HOME WS: the mock provider, the MCP server (its call count in HOME/../mcp.state), the todo tool
configure() {
  local c="$1" home="$2" d; d="$(dirname "$home")"
  case "$c" in
    claude-code)
      jq -n --arg node "$NODE" --arg srv "$SERVER" --arg st "$d/mcp.state" \
        '{mcpServers: {ferry41: {type: "stdio", command: $node, args: [$srv, $st]}}}' > "$d/mcp-config.json" ;;
    codex|codex-classic)
      local model="$CODEX_MODEL"; [ "$c" = codex-classic ] && model="$CODEX_CLASSIC_MODEL"
      write_codex_config "$home/.codex" "$model"
      # (TOML basic strings: the paths hold no quote or backslash.) Codex 0.171 defers MCP tools behind its
      # tool_search tool; the mock searches for ferry_flaky first (a tool_search_call in the session).
      # startup_timeout_sec: on a loaded machine the server's start outlasts the default 10 s, and tool_search finds nothing.
      printf '\n[mcp_servers.ferry41]\ncommand = "%s"\nargs = ["%s", "%s"]\nstartup_timeout_sec = 120\n\n[tools.update_plan]\nenabled = true\n' \
        "$NODE" "$SERVER" "$d/mcp.state" >> "$home/.codex/config.toml" ;;
    opencode)
      OPENCODE_MODEL_EXTRA="$OPENCODE_IMAGE_MODEL" write_opencode_config "$home/.config"
      local f="$home/.config/opencode/opencode.json"
      jq --arg node "$NODE" --arg srv "$SERVER" --arg st "$d/mcp.state" \
        '.mcp = {ferry41: {type: "local", command: [$node, $srv, $st], enabled: true}}' "$f" > "$f.tmp" && mv "$f.tmp" "$f" ;;
  esac
}

# turn CLIENT HOME WS N SID -> runs turn N (0-based); prints the session id after turn 0
turn() {
  local c="$1" home="$2" ws="$3" n="$4" sid="$5" d log rc=0
  d="$(dirname "$home")" log="$d/mock-requests.jsonl"
  local out="$d/turn$((n + 1)).out" err="$d/turn$((n + 1)).err" p="${TURNS[$n]}"
  export MOCK_STEPS="${STEPS[$n]}" MOCK_TURN_STEPS=1
  case "$c" in
    claude-code)
      local cenv; cenv="$(claude_env "$home") CLAUDE_CODE_ENABLE_TODO_TOOLS=1 ENABLE_TOOL_SEARCH=false"
      if [ "$n" -eq 0 ]; then
        jq -cn --arg t "$p" --arg img "$(base64 -w0 "$ws/ferry-image.png")" \
          '{type: "user", message: {role: "user", content: [{type: "text", text: $t},
            {type: "image", source: {type: "base64", media_type: "image/png", data: $img}}]}}' > "$d/turn1.stdin.jsonl"
        ( cd "$ws" && CLIENT_STDIN="$d/turn1.stdin.jsonl" run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $cenv "$BIN/claude" -p --input-format stream-json --output-format stream-json --verbose \
            --mcp-config "$d/mcp-config.json" --strict-mcp-config --dangerously-skip-permissions ) || rc=$?
        jq -r 'select(.type == "result") | .session_id // empty' "$out" 2>/dev/null | tail -1
      else
        ( cd "$ws" && run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $cenv "$BIN/claude" --resume "$sid" -p "$p" --output-format json \
            --mcp-config "$d/mcp-config.json" --strict-mcp-config --dangerously-skip-permissions ) || rc=$?
      fi ;;
    codex|codex-classic)
      if [ "$n" -eq 0 ]; then
        ( cd "$ws" && run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $(codex_env "$home") "$BIN/codex" exec --json --skip-git-repo-check \
            --dangerously-bypass-approvals-and-sandbox "$p" --image "$ws/ferry-image.png" ) || rc=$?
        local f; f="$(find "$home/.codex/sessions" -name 'rollout-*.jsonl' 2>/dev/null | head -1)"
        [ -n "$f" ] && head -1 "$f" | jq -r '.payload.id // empty'
      else
        ( cd "$ws" && run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $(codex_env "$home") "$BIN/codex" exec resume --json --skip-git-repo-check \
            --dangerously-bypass-approvals-and-sandbox "$sid" "$p" ) || rc=$?
      fi ;;
    opencode)
      # words first: -f takes every following word as a file
      # shellcheck disable=SC2086
      if [ "$n" -eq 0 ]; then
        ( cd "$ws" && run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $(opencode_env "$home") "$BIN/opencode" run --format json $p -f "$ws/ferry-image.png" ) || rc=$?
        sqlite3 "$home/.local/share/opencode/opencode.db" "select id from session where parent_id is null order by time_created desc limit 1" 2>/dev/null
      else
        ( cd "$ws" && run_in_netns "$log" "$ws" gen "$out" "$err" -- \
            env -i $(opencode_env "$home") "$BIN/opencode" run --format json --session "$sid" $p ) || rc=$?
      fi ;;
  esac
  echo "$c turn $((n + 1)) rc=$rc steps=${STEPS[$n]} replies=$(jq -r 'select(.reply.step) | .reply.step' "$log" 2>/dev/null | paste -sd, -)" >> "$d/turns.log"
  unset MOCK_STEPS MOCK_TURN_STEPS
}


# hist_counts CHECK_TXT -> "calls/results/user texts" of the resumed history
hist_counts() { sed -n 's/^history: [0-9]* items, \([0-9]*\) tool calls, \([0-9]*\) tool results, \([0-9]*\) user text items/\1 calls, \2 results, \3 user texts/p' "$1"; }

[ -n "${NO_BUILD:-}" ] || { "$HERE/setup.sh" > "$OUT/setup.log" 2>&1 || { echo "setup failed: $OUT/setup.log" >&2; exit 1; }; }
[ -n "${NO_BUILD:-}" ] || (cd "$ROOT" && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs) || { echo "build failed" >&2; exit 1; }
check_prereqs "${CLIENTS[@]}"

for s in "${CLIENTS[@]}"; do
  g="$OUT/gen/$s" home="$OUT/gen/$s/home" ws="$OUT/gen/$s/wörk-démo"
  if [ -z "${NO_GEN:-}" ]; then
    rm -rf "$g"; mkdir -p "$home" "$ws"
    printf 'ferry probe file\nline two: hello\n' > "$ws/probe.txt"
    make_png "$ws/ferry-image.png"
    configure "$s" "$home"
    sid="$(turn "$s" "$home" "$ws" 0 "")"
    if [ -n "$sid" ]; then
      for n in 1 2 3 4 5; do turn "$s" "$home" "$ws" "$n" "$sid"; done
      fid="$(fork "$s" "$home" "$ws" "$sid" "$(dirname "$home")/fork")"
    fi
    jq -n --arg c "$s" --arg v "$(client_version "$s")" --arg sid "${sid:-}" --arg fid "${fid:-}" --arg ws "$ws" \
      '{client: $c, version: $v, session_id: $sid, fork_id: $fid, workdir: $ws}' > "$g/session.json"
  fi
  sid="$(jq -r .session_id "$g/session.json")" fid="$(jq -r .fork_id "$g/session.json")"
  row="$s $(jq -r .version "$g/session.json") (session $sid, fork $fid; turns: $(grep -c 'rc=0' "$g/turns.log" 2>/dev/null)/6 rc=0)"
  [ -n "$sid" ] || { echo "$s | (no session generated: $g)" > "$OUT/row-$s.txt"; continue; }
  for kind in "${SOURCES[@]}"; do
    id="$sid"; extra=()
    if [ "$kind" = fork ]; then id="$fid"; extra=("@user:FERRY-FORK"); fi
    [ -n "$id" ] || { row="$row | $kind: (fork failed: $g/fork.err)"; continue; }
    "$HERE/check-resume.sh" "$s" "$home" "$id" "${CANDIDATES[@]}" "${extra[@]}" > "$OUT/self-$s-$kind.txt" 2> "$OUT/self-$s-$kind.err"
    exp=()
    for c in "${CANDIDATES[@]}" "${extra[@]}"; do grep '^found' "$OUT/self-$s-$kind.txt" | grep -qF -- "] $c" && exp+=("$c"); done
    row="$row | $kind $id self: $(tail -1 "$OUT/self-$s-$kind.txt") ($(hist_counts "$OUT/self-$s-$kind.txt"))"
    miss="$(grep '^MISSING' "$OUT/self-$s-$kind.txt" | sed 's/^MISSING //' | tr '\n' ' ')"
    [ -n "$miss" ] && row="$row (source client itself lacks: $miss)"
    for tc in "${TARGETS[@]}"; do
      [ "$(harness_of "$s")" = "$(harness_of "$tc")" ] && continue
      d="$OUT/conv/$s-$kind-to-$tc"; th="$(harness_of "$tc")"
      tid="$(convert_into "$s" "$id" "$tc" "$home" "$d")" || { row="$row | $kind -> $tc: convert FAILED ($(head -1 "$d/convert.err"))"; continue; }
      want=()
      for m in "${exp[@]}"; do [ "${m#@error:}" != "$m" ] && [ "$th" != claude-code ] && continue; want+=("$m"); done
      # the failed calls the source holds are flagged in Claude Code, whatever the source's own wire says
      if [ "$th" = claude-code ]; then
        for m in ferry-fail ferry-mcp-fail; do printf '%s\n' "${exp[@]}" | grep -qxF "@result:$m" && want+=("@error:$m"); done
      fi
      mapfile -t want < <(printf '%s\n' "${want[@]}" | awk '!seen[$0]++')
      "$HERE/check-resume.sh" "$tc" "$d/home" "$tid" "${want[@]}" > "$d/check.txt" 2> "$d/check.err"
      row="$row | $kind -> $tc ($tid): $(tail -1 "$d/check.txt") ($(hist_counts "$d/check.txt"))"
      miss="$(grep '^MISSING' "$d/check.txt" | sed 's/^MISSING //' | tr '\n' ' ')"
      [ -n "$miss" ] && row="$row (missing: $miss)"
    done
  done
  echo "$row" > "$OUT/row-$s.txt"
done

echo
echo "scenario41 source x target (check-resume markers kept/expected; expected = what the source client resumes its own session/fork with, + @error into claude-code)"
for r in "$OUT"/row-*.txt; do [ -f "$r" ] && sed 's/ | /\n    /g' "$r"; done
echo "details: $OUT"
