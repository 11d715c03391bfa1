# Shared by the conformance scripts that convert genuine sessions and resume them (matrix.sh, fork.sh,
# scenario41.sh): the harness a client id writes, what a target's client does before it can resume what
# ferry wrote, and each client's own fork command. Sourced; expects HERE (the conformance folder) and
# FORK_PROMPT.

# harness_of CLIENT -> the ferry harness id (codex and codex-classic are both codex)
harness_of() { case "$1" in codex*) echo codex ;; *) echo "$1" ;; esac; }

# land TARGET_CLIENT HOME CONVERT_JSON LOGDIR: OpenCode (and Kilo when ferry wrote an export document rather
# than rows) imports the documents, as a person would before resuming.
land() {
  local tc="$1" home="$2" cj="$3" d="$4" p
  case "$tc" in
    opencode|kilo)
      for p in $(jq -r .path "$cj"); do
        case "$p" in *.json) "$HERE/run-client.sh" "$tc" "$home" -- import "$p" >> "$d/import.out" 2>> "$d/import.err" ;; esac
      done ;;
  esac
}

# fork CLIENT HOME WS SID OUTPREFIX -> prints the fork's session id (the client's output in OUTPREFIX.out/.err)
fork() {
  local c="$1" home="$2" ws="$3" sid="$4" out="$5.out" err="$5.err"
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

# convert_into SOURCE_CLIENT ID TARGET_CLIENT SOURCE_HOME DIR -> prints the written session's id; the source
# home is copied to DIR/home, converted there and landed. Fails (with DIR/convert.err) when ferry does.
convert_into() {
  local s="$1" id="$2" tc="$3" src="$4" d="$5"
  rm -rf "$d"; mkdir -p "$d"
  cp -a "$src" "$d/home"
  "${FERRY[@]}" --home "$d/home" convert "$(harness_of "$s"):$id" --to "$(harness_of "$tc")" --json > "$d/convert.json" 2> "$d/convert.err" || return 1
  land "$tc" "$d/home" "$d/convert.json" "$d"
  head -1 "$d/convert.json" | jq -r .id
}
