#!/usr/bin/env bash
# gen.sh OUTDIR [CLIENT...]
#
# Runs each REAL client non-interactively against the scripted mock model, inside a private
# network namespace (loopback only), with a throwaway home under OUTDIR/<client>/home.
# CLIENT is any of: claude-code codex codex-classic opencode   (default: all four)
#   wave 3 (installed by setup-wave3.sh, never part of the default): pi gemini qwen copilot kilo
#   codex          = Codex with its default model (0.171: "code mode": one freeform `exec` JS tool)
#   codex-classic  = Codex with CODEX_CLASSIC_MODEL (default gpt-5.5: shell_command + apply_patch tools)
#
# Leaves per client:
#   OUTDIR/<client>/home/...            the real session store the client wrote
#   OUTDIR/<client>/ws/                 the workspace it ran in (probe.txt, edited by the run)
#   OUTDIR/<client>/mock-requests.jsonl every request body the client sent to the mock
#   OUTDIR/<client>/client.out|.err     client stdout / stderr
#   OUTDIR/<client>/session.json        {client, version, session_id, session_path, seconds, ...}
# and prints one line per client: "<client> <session id> <path>".
# Env: FERRY_CLIENTS_DIR, MOCK_PORT, MOCK_STEPS (default bash,read,edit,bigout,agent), PROMPT,
#      CODEX_MODEL, CODEX_CLASSIC_MODEL, OPENCODE_PROVIDER_NPM, CLIENT_TIMEOUT (s, default 180);
#      wave 3: FERRY_WAVE3_DIR, PI_API, PI_MODEL_ID, GEMINI_MODEL, QWEN_MODEL, QWEN_AUTH_TYPE,
#      COPILOT_PROVIDER_TYPE, COPILOT_MODEL, COPILOT_PROVIDER_WIRE_API (see lib/common.sh).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib/common.sh"

[ $# -ge 1 ] || die "usage: gen.sh OUTDIR [claude-code|codex|codex-classic|opencode ...]"
OUTDIR="$(mkdir -p "$1" && cd "$1" && pwd)"; shift
CLIENTS=("$@"); [ ${#CLIENTS[@]} -gt 0 ] || CLIENTS=(claude-code codex codex-classic opencode)
# No shell metacharacters or quotes: OpenCode joins argv words itself (see README).
PROMPT="${PROMPT:-FERRY-PROBE: run the probe command, then read probe.txt, edit it, print a long listing and ask a subagent.}"
check_prereqs "${CLIENTS[@]}"
COMPACT_LIMIT="${COMPACT_LIMIT:-40000}"
COMPACT_REPORT="${COMPACT_REPORT:-90000}"
if [ -n "${COMPACT:-}" ]; then
  AFTER_TURNS=("FERRY-AFTER-ONE: one more turn, please." "FERRY-AFTER-TWO: and a last one after the compaction.")
fi

# GEN_SETUP=CMD: run as `CMD CLIENT HOME` once the client's config is written, before it starts
# (conformance/hooks.sh installs ferry's hooks there).
gen_setup() { [ -z "${GEN_SETUP:-}" ] || "$GEN_SETUP" "$1" "$2"; }

fail=0
for client in "${CLIENTS[@]}"; do
  d="$OUTDIR/$client"
  rm -rf "$d"; mkdir -p "$d/home" "$d/ws"
  home="$d/home" ws="$d/ws" log="$d/mock-requests.jsonl"
  printf 'ferry probe file\nline two: hello\n' > "$ws/probe.txt"
  make_png "$ws/ferry-image.png"
  t0=$(date +%s.%N)
  rc=0
  case "$client" in
    claude-code)
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(claude_env "$home") "$BIN/claude" -p "$PROMPT" \
          --dangerously-skip-permissions --output-format json ) || rc=$?
      sid="$(jq -r '.session_id // empty' "$d/client.out" 2>/dev/null || true)"
      path="$(ls -1 "$home"/.claude/projects/*/"$sid".jsonl 2>/dev/null | head -1)"
      ;;
    codex|codex-classic)
      model="$CODEX_MODEL"; [ "$client" = codex-classic ] && model="$CODEX_CLASSIC_MODEL"
      write_codex_config "$home/.codex" "$model"
      # multi-agent tools (spawn_agent / wait_agent) for the classic model; auto-compaction by reported usage
      printf '\n[features]\nmulti_agent_v2 = true\n' >> "$home/.codex/config.toml"
      [ -n "${COMPACT:-}" ] && sed -i "1i model_auto_compact_token_limit = $COMPACT_LIMIT" "$home/.codex/config.toml"
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(codex_env "$home") "$BIN/codex" exec --json --skip-git-repo-check \
          --dangerously-bypass-approvals-and-sandbox "$PROMPT" ) || rc=$?
      path="$(find "$home/.codex/sessions" -name 'rollout-*.jsonl' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)"
      sid="$( [ -n "$path" ] && head -1 "$path" | jq -r '.payload.id // empty' || true)"
      ;;
    opencode)
      OPENCODE_MODEL_EXTRA="$OPENCODE_IMAGE_MODEL" write_opencode_config "$home/.config"
      # a small context window, so the reported usage (MOCK_REPORT_TOKENS) overflows it: auto-compaction
      [ -n "${COMPACT:-}" ] && sed -i 's/"context": 200000/"context": '"$COMPACT_LIMIT"'/' "$home/.config/opencode/opencode.json"
      # PROMPT is passed as separate words on purpose: `opencode run` wraps any argv element that
      # contains a space in double quotes before joining them into the user message.
      # shellcheck disable=SC2086
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(opencode_env "$home") "$BIN/opencode" run --format json $PROMPT ) || rc=$?
      path="$home/.local/share/opencode/opencode.db"
      sid="$( [ -f "$path" ] && sqlite3 "$path" "select id from session where parent_id is null order by time_created desc limit 1" || true)"
      ;;
    pi)
      write_pi_config "$home/.pi/agent"
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(pi_env "$home") "$(w3_bin pi)" --provider ferrymock --model "$PI_MODEL_ID" --mode json -p "$PROMPT" ) || rc=$?
      path="$(find "$home/.pi/agent/sessions" -name '*.jsonl' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)"
      sid="$( [ -n "$path" ] && head -1 "$path" | jq -r '.id // empty' || true)"
      ;;
    gemini)
      write_gemini_config "$home/.gemini"
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(gemini_env "$home") "$(w3_bin gemini)" --yolo --skip-trust --output-format json \
          -m "$GEMINI_MODEL" -p "$PROMPT" ) || rc=$?
      sid="$(jq -r '.session_id // empty' "$d/client.out" 2>/dev/null || true)"
      path="$(grep -l "\"sessionId\":\"$sid\"" "$home"/.gemini/tmp/*/chats/session-*.jsonl 2>/dev/null | head -1)"
      ;;
    qwen)
      write_qwen_config "$home/.qwen"
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(qwen_env "$home") "$(w3_bin qwen)" --yolo --auth-type "$QWEN_AUTH_TYPE" -m "$QWEN_MODEL" \
          --output-format json "$PROMPT" ) || rc=$?
      path="$(find "$home/.qwen/projects" -path '*/chats/*.jsonl' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)"
      sid="$( [ -n "$path" ] && basename "$path" .jsonl || true)"
      ;;
    copilot)
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(copilot_env "$home") "$(w3_bin copilot)" --allow-all-tools --allow-all-paths \
          --disable-client-telemetry --output-format json -p "$PROMPT" ) || rc=$?
      sid="$(jq -r 'select(.type=="result") | .sessionId // empty' "$d/client.out" 2>/dev/null | tail -1 || true)"
      path="$( [ -n "$sid" ] && ls "$home/.copilot/session-state/$sid/events.jsonl" 2>/dev/null || true)"
      ;;
    kilo)
      write_kilo_config "$home/.config"
      # shellcheck disable=SC2086
      gen_setup "$client" "$home"
      ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.out" "$d/client.err" -- \
          env -i $(kilo_env "$home") "$(w3_bin kilo)" run --format json $PROMPT ) || rc=$?
      path="$home/.local/share/kilo/kilo.db"
      sid="$( [ -f "$path" ] && sqlite3 "$path" "select id from session where parent_id is null order by time_created desc limit 1" || true)"
      ;;
    *) die "unknown client $client" ;;
  esac
  # COMPACT=1: more turns, so that the session holds one compaction and a turn after it
  if [ -n "${COMPACT:-}" ] && [ "$rc" -eq 0 ] && [ -n "${sid:-}" ]; then
    turns=("${AFTER_TURNS[@]}")
    # Claude Code compacts on request; Codex and OpenCode compact on their own once the reported usage is over their limit
    [ "$client" = claude-code ] && turns=("/compact" "${AFTER_TURNS[1]}")
    for turn in "${turns[@]}"; do
      case "$client" in
        claude-code)
          ( cd "$ws" && run_in_netns "$log" "$ws" gen "$d/client.after.out" "$d/client.after.err" -- \
              env -i $(claude_env "$home") "$BIN/claude" --resume "$sid" -p "$turn" \
              --dangerously-skip-permissions --output-format json ) || rc=$? ;;
        codex|codex-classic)
          ( cd "$ws" && MOCK_REPORT_TOKENS="$COMPACT_REPORT" run_in_netns "$log" "$ws" gen "$d/client.after.out" "$d/client.after.err" -- \
              env -i $(codex_env "$home") "$BIN/codex" exec resume --json --skip-git-repo-check \
              --dangerously-bypass-approvals-and-sandbox "$sid" "$turn" ) || rc=$? ;;
        opencode)
          # shellcheck disable=SC2086
          ( cd "$ws" && MOCK_REPORT_TOKENS="$COMPACT_REPORT" run_in_netns "$log" "$ws" gen "$d/client.after.out" "$d/client.after.err" -- \
              env -i $(opencode_env "$home") "$BIN/opencode" run --format json --session "$sid" $turn ) || rc=$? ;;
      esac
    done
  fi
  secs=$(echo "$(date +%s.%N) - $t0" | bc)
  ver="$(client_version "$client")"
  jq -n --arg client "$client" --arg version "$ver" --arg sid "${sid:-}" --arg path "${path:-}" \
        --arg home "$home" --arg ws "$ws" --argjson rc "$rc" --arg secs "$secs" --arg prompt "$PROMPT" \
        --arg model "$(jq -r 'select(.reply.api) | .body.model // ((.path | capture("models/(?<m>[^:/?]+)") | .m) // empty)' "$log" 2>/dev/null | head -1)" \
        '{client:$client, version:$version, session_id:$sid, session_path:$path, home:$home, workdir:$ws,
          exit_code:$rc, seconds:($secs|tonumber|.*10|round/10), prompt:$prompt, model:$model}' > "$d/session.json"
  marker=no; grep -q 'FERRY-DONE' "$d/client.out" 2>/dev/null && marker=yes
  if [ "$rc" -ne 0 ] || [ -z "${sid:-}" ]; then
    fail=1
    echo "$client FAILED rc=$rc (see $d/client.err)" >&2
  fi
  printf '%-14s %s %s (rc=%s, %.1fs, final marker in output: %s)\n' "$client" "${sid:-?}" "${path:-?}" "$rc" "$secs" "$marker"
done
exit $fail
