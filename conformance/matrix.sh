#!/usr/bin/env bash
# matrix.sh [OUTDIR]   (npm run conformance)
#
# Generates genuine long sessions with the real clients (gen.sh, COMPACT=1, the steps below: two
# shell calls in one response, an image read, a long output, a sub-agent — Codex's multi-agent
# tools for codex-classic — and one compaction), converts each into every other client with ferry
# (bin/ferry.js, built first), resumes every result with the real client (check-resume.sh) and
# prints a source x target matrix of check-resume markers.
#
# Expected markers per source are the candidates below that the source client itself sends when it
# resumes its own session (after a compaction a client sends only what its compaction kept: the
# conversion must carry exactly that, no less). Every run stays inside the loopback-only namespace
# (lib/netns-run.sh); nothing here starts a client any other way.
# Env: COMPACT (default 1; empty: no compaction, so every step stays in the resumed history), MOCK_STEPS (default bash,par,image,bigout,agent,wait), CLIENTS (default: claude-code codex-classic opencode; the wave-3 clients pi gemini qwen copilot kilo when named, installed with setup.sh --wave3), TARGETS (clients converted into; default CLIENTS), CODEX_PROVIDER (openai: remote compaction, its summary encrypted; any other id, e.g. ferrymock: Codex compacts locally and keeps the summary as text).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${1:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-conformance.XXXXXX")}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
CLIENTS=(${CLIENTS:-claude-code codex-classic opencode})
TARGETS=(${TARGETS:-${CLIENTS[@]}})
export MOCK_STEPS="${MOCK_STEPS:-bash,par,image,bigout,agent,wait}"
FERRY=(node "$ROOT/bin/ferry.js")
. "$HERE/lib/convert.sh"
CANDIDATES=("@user:FERRY-PROBE" "@user:FERRY-AFTER-ONE" "@user:FERRY-AFTER-TWO" "@result:ferry-probe" "@result:ferry-par-one" "@result:ferry-par-two" "@image:" "FERRY-SUBAGENT-DONE" "FERRY-SUMMARY" "@assistant:FERRY-DONE" "@assistant:FERRY-RESUMED")


# The wave-3 clients named in CLIENTS or TARGETS (pi gemini qwen copilot kilo) are installed by setup.sh --wave3.
W3=()
for c in $(printf '%s\n' "${CLIENTS[@]}" "${TARGETS[@]}" | sort -u); do
  case " pi gemini qwen copilot kilo " in *" $c "*) W3+=("$c") ;; esac
done
"$HERE/setup.sh" > "$OUT/setup.log" 2>&1 || { echo "setup failed: $OUT/setup.log" >&2; exit 1; }
if [ "${#W3[@]}" -gt 0 ]; then
  "$HERE/setup.sh" --wave3 "${W3[@]}" >> "$OUT/setup.log" 2>&1 || { echo "setup --wave3 failed: $OUT/setup.log" >&2; exit 1; }
fi

(cd "$ROOT" && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs) || { echo "build failed" >&2; exit 1; }
COMPACT="${COMPACT-1}" "$HERE/gen.sh" "$OUT/gen" "${CLIENTS[@]}" | tee "$OUT/gen.log"

declare -A EXPECT
rows=()
for s in "${CLIENTS[@]}"; do
  sj="$OUT/gen/$s/session.json"
  sid="$(jq -r '.session_id // empty' "$sj" 2>/dev/null)"
  [ -n "$sid" ] || { rows+=("$s | (no session generated)"); continue; }
  "$HERE/check-resume.sh" "$s" "$OUT/gen/$s/home" "$sid" "${CANDIDATES[@]}" > "$OUT/self-$s.txt" 2>"$OUT/self-$s.err"
  exp=()
  for c in "${CANDIDATES[@]}"; do grep '^found' "$OUT/self-$s.txt" | grep -qF -- " $c" && exp+=("$c"); done
  EXPECT[$s]="${#exp[@]}"
  row="$s ($sid) self: $(tail -1 "$OUT/self-$s.txt")"
  for tc in "${TARGETS[@]}"; do
    [ "$(harness_of "$s")" = "$(harness_of "$tc")" ] && continue
    d="$OUT/conv/$s-to-$tc"; th="$(harness_of "$tc")"
    tid="$(convert_into "$s" "$sid" "$tc" "$OUT/gen/$s/home" "$d")" || { row="$row | -> $tc: convert FAILED ($(head -1 "$d/convert.err"))"; continue; }
    "$HERE/check-resume.sh" "$tc" "$d/home" "$tid" "${exp[@]}" > "$d/check.txt" 2> "$d/check.err"
    row="$row | -> $tc: $(tail -1 "$d/check.txt")"
    miss="$(grep '^MISSING' "$d/check.txt" | sed 's/^MISSING //' | tr '\n' ' ')"
    [ -n "$miss" ] && row="$row (missing: $miss)"
  done
  rows+=("$row")
done

echo
echo "source x target (check-resume markers; expected = what the source client itself resumes with)"
for r in "${rows[@]}"; do echo "$r" | sed 's/ | /\n    /g'; done
echo "details: $OUT"
