#!/usr/bin/env bash
# hooks.sh [OUTDIR]   (npm run conformance:hooks)
#
# The always-on archive with the real clients: ferry's hooks are installed into each client's fresh
# HOME (`ferry --home HOME hooks install --agent H`, after gen.sh wrote the client's config and
# before the client starts), the client runs its scripted turn, and the archive then holds the
# session although nobody ran `ferry archive`. Prints one line per client and `N passed, N failed`.
# Env: CLIENTS (default: claude-code codex-classic opencode), NETNS_GRACE (default 30: seconds the
# hook's detached archive may finish after the client exits, as it would on a real machine).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${1:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-hooks.XXXXXX")}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
CLIENTS=(${CLIENTS:-claude-code codex-classic opencode})
export NETNS_GRACE="${NETNS_GRACE:-30}" MOCK_STEPS="${MOCK_STEPS:-bash}"

"$HERE/setup.sh" > "$OUT/setup.log" 2>&1 || { echo "setup failed: $OUT/setup.log" >&2; exit 1; }
(cd "$ROOT" && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs) || { echo "build failed" >&2; exit 1; }

setup="$OUT/install-hooks.sh"
cat > "$setup" <<SH
#!/usr/bin/env bash
h="\$1"; case "\$1" in codex*) h=codex ;; esac
node "$ROOT/bin/ferry.js" --home "\$2" hooks install --agent "\$h" >> "$OUT/install.log" 2>&1
SH
chmod +x "$setup"
GEN_SETUP="$setup" "$HERE/gen.sh" "$OUT/gen" "${CLIENTS[@]}" | tee "$OUT/gen.log"

pass=0 fail=0
for c in "${CLIENTS[@]}"; do
  home="$OUT/gen/$c/home"
  sid="$(jq -r '.session_id // empty' "$OUT/gen/$c/session.json" 2>/dev/null)"
  db="$home/.local/share/ferry/archive.db"
  got="$( [ -f "$db" ] && sqlite3 "$db" "select sid || ' ' || record_count from sessions where sid like '%$sid'" 2>/dev/null)"
  if [ -n "$sid" ] && [ -n "$got" ]; then
    echo "$c: session $sid archived by its own hook ($got records); hooks.log: $(tail -1 "$home/.local/state/ferry/hooks.log" 2>/dev/null)"
    pass=$((pass + 1))
  else
    echo "$c: session ${sid:-?} NOT in the archive ($db); hooks.log: $(tail -3 "$home/.local/state/ferry/hooks.log" 2>/dev/null | tr '\n' ' ')"
    fail=$((fail + 1))
  fi
done
echo "details: $OUT"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
