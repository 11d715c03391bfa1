#!/usr/bin/env bash
# fork.sh [OUTDIR]   (issue #41: forks and failed calls)
#
# Each real client runs the scripted task with a command that fails (exit 7) and then the probe
# command (MOCK_STEPS=fail,bash), then forks that session with its own fork command, inside the
# loopback-only namespace (run-client.sh, mock in resume mode: the fork's turn is answered in text):
#   claude-code   claude --resume ID --fork-session -p PROMPT
#   codex-classic codex exec fork ID PROMPT            (the fork's rollout: forked_from_id + history_base)
#   opencode      opencode run --session ID --fork PROMPT
# The fork is converted by ferry into every other client, landed (OpenCode/Kilo import) and resumed
# with the real client (check-resume.sh). Expected markers are those the source client itself
# resumes the fork with: the parent's prompt and results (the inherited history), the fork's own
# prompt, and the failed call flagged an error where the target's wire carries a flag.
# Prints a source x target matrix with the session ids. Env: CLIENTS, TARGETS (as matrix.sh).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${1:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-fork.XXXXXX")}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
CLIENTS=(${CLIENTS:-claude-code codex-classic opencode})
TARGETS=(${TARGETS:-${CLIENTS[@]}})
export MOCK_STEPS="${MOCK_STEPS:-fail,bash}"
FORK_PROMPT="FERRY-FORK: one more turn in the fork."
FERRY=(node "$ROOT/bin/ferry.js")
CANDIDATES=("@user:FERRY-PROBE" "@result:ferry-fail" "@error:ferry-fail" "@result:ferry-probe" "@user:FERRY-FORK" "@assistant:FERRY-DONE")

harness_of() { case "$1" in codex*) echo codex ;; *) echo "$1" ;; esac; }

land() {
  local tc="$1" home="$2" cj="$3" d="$4" p
  case "$tc" in
    opencode|kilo)
      for p in $(jq -r .path "$cj"); do
        case "$p" in *.json) "$HERE/run-client.sh" "$tc" "$home" -- import "$p" >> "$d/import.out" 2>> "$d/import.err" ;; esac
      done ;;
  esac
}

# fork CLIENT HOME WS SID -> prints the fork's session id
fork() {
  local c="$1" home="$2" ws="$3" sid="$4" out="$OUT/fork-$1.out" err="$OUT/fork-$1.err"
  case "$c" in
    claude-code)
      "$HERE/run-client.sh" "$c" "$home" --cwd "$ws" -- --resume "$sid" --fork-session -p "$FORK_PROMPT" \
        --dangerously-skip-permissions --output-format json > "$out" 2> "$err"
      jq -r '.session_id // empty' "$out" 2>/dev/null ;;
    codex|codex-classic)
      "$HERE/run-client.sh" "$c" "$home" --cwd "$ws" -- exec fork --skip-git-repo-check "$sid" "$FORK_PROMPT" > "$out" 2> "$err"
      local f
      f="$(grep -l '"forked_from_id"' $(find "$home/.codex/sessions" -name 'rollout-*.jsonl') 2>/dev/null | head -1)"
      [ -n "$f" ] && head -1 "$f" | jq -r '.payload.id // empty' ;;
    opencode)
      # shellcheck disable=SC2086
      "$HERE/run-client.sh" "$c" "$home" --cwd "$ws" -- run --session "$sid" --fork --format json $FORK_PROMPT > "$out" 2> "$err"
      sqlite3 "$home/.local/share/opencode/opencode.db" "select id from session where id != '$sid' and parent_id is null order by time_created desc limit 1" ;;
  esac
}

"$HERE/setup.sh" > "$OUT/setup.log" 2>&1 || { echo "setup failed: $OUT/setup.log" >&2; exit 1; }
(cd "$ROOT" && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs) || { echo "build failed" >&2; exit 1; }
COMPACT= "$HERE/gen.sh" "$OUT/gen" "${CLIENTS[@]}" | tee "$OUT/gen.log"

rows=()
for s in "${CLIENTS[@]}"; do
  sj="$OUT/gen/$s/session.json"
  sid="$(jq -r '.session_id // empty' "$sj" 2>/dev/null)"
  [ -n "$sid" ] || { rows+=("$s | (no session generated)"); continue; }
  fid="$(fork "$s" "$OUT/gen/$s/home" "$OUT/gen/$s/ws" "$sid")"
  [ -n "$fid" ] || { rows+=("$s ($sid) | (fork failed: $OUT/fork-$s.err)"); continue; }
  "$HERE/check-resume.sh" "$s" "$OUT/gen/$s/home" "$fid" "${CANDIDATES[@]}" > "$OUT/self-$s.txt" 2>"$OUT/self-$s.err"
  exp=()
  for c in "${CANDIDATES[@]}"; do grep '^found' "$OUT/self-$s.txt" | grep -qF -- " $c" && exp+=("$c"); done
  row="$s (session $sid, fork $fid) self: $(tail -1 "$OUT/self-$s.txt")"
  for tc in "${TARGETS[@]}"; do
    [ "$(harness_of "$s")" = "$(harness_of "$tc")" ] && continue
    d="$OUT/conv/$s-to-$tc"; rm -rf "$d"; mkdir -p "$d"
    cp -a "$OUT/gen/$s/home" "$d/home"
    th="$(harness_of "$tc")"
    if ! "${FERRY[@]}" --home "$d/home" convert "$(harness_of "$s"):$fid" --to "$th" --json > "$d/convert.json" 2> "$d/convert.err"; then
      row="$row | -> $tc: convert FAILED ($(head -1 "$d/convert.err"))"; continue
    fi
    tid="$(head -1 "$d/convert.json" | jq -r .id)"
    land "$tc" "$d/home" "$d/convert.json" "$d"
    # Only the Anthropic wire carries an error flag (check-resume.sh): @error is asked of claude-code targets alone.
    want=()
    for m in "${exp[@]}"; do [ "${m#@error:}" != "$m" ] && [ "$th" != claude-code ] && continue; want+=("$m"); done
    [ "$th" = claude-code ] && want+=("@error:ferry-fail")
    "$HERE/check-resume.sh" "$tc" "$d/home" "$tid" $(printf '%s\n' "${want[@]}" | sort -u) > "$d/check.txt" 2> "$d/check.err"
    row="$row | -> $tc ($tid): $(tail -1 "$d/check.txt")"
    miss="$(grep '^MISSING' "$d/check.txt" | sed 's/^MISSING //' | tr '\n' ' ')"
    [ -n "$miss" ] && row="$row (missing: $miss)"
  done
  rows+=("$row")
done

echo
echo "fork source x target (check-resume markers; expected = what the source client resumes its own fork with)"
for r in "${rows[@]}"; do echo "$r" | sed 's/ | /\n    /g'; done
echo "details: $OUT"
