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
. "$HERE/lib/convert.sh"
CANDIDATES=("@user:FERRY-PROBE" "@result:ferry-fail" "@error:ferry-fail" "@result:ferry-probe" "@user:FERRY-FORK" "@assistant:FERRY-DONE")




"$HERE/setup.sh" > "$OUT/setup.log" 2>&1 || { echo "setup failed: $OUT/setup.log" >&2; exit 1; }
(cd "$ROOT" && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs) || { echo "build failed" >&2; exit 1; }
COMPACT= "$HERE/gen.sh" "$OUT/gen" "${CLIENTS[@]}" | tee "$OUT/gen.log"

rows=()
for s in "${CLIENTS[@]}"; do
  sj="$OUT/gen/$s/session.json"
  sid="$(jq -r '.session_id // empty' "$sj" 2>/dev/null)"
  [ -n "$sid" ] || { rows+=("$s | (no session generated)"); continue; }
  fid="$(fork "$s" "$OUT/gen/$s/home" "$OUT/gen/$s/ws" "$sid" "$OUT/fork-$s")"
  [ -n "$fid" ] || { rows+=("$s ($sid) | (fork failed: $OUT/fork-$s.err)"); continue; }
  "$HERE/check-resume.sh" "$s" "$OUT/gen/$s/home" "$fid" "${CANDIDATES[@]}" > "$OUT/self-$s.txt" 2>"$OUT/self-$s.err"
  exp=()
  for c in "${CANDIDATES[@]}"; do grep '^found' "$OUT/self-$s.txt" | grep -qF -- " $c" && exp+=("$c"); done
  row="$s (session $sid, fork $fid) self: $(tail -1 "$OUT/self-$s.txt")"
  for tc in "${TARGETS[@]}"; do
    [ "$(harness_of "$s")" = "$(harness_of "$tc")" ] && continue
    d="$OUT/conv/$s-to-$tc"; th="$(harness_of "$tc")"
    tid="$(convert_into "$s" "$fid" "$tc" "$OUT/gen/$s/home" "$d")" || { row="$row | -> $tc: convert FAILED ($(head -1 "$d/convert.err"))"; continue; }
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
