# Shared settings for gen.sh / resume.sh (sourced, not run).
# Everything machine-specific is a variable with a default.

HERE="${HERE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
CLIENTS_DIR="${FERRY_CLIENTS_DIR:-$HOME/.cache/ferry-acceptance/clients}"
BIN="$CLIENTS_DIR/node_modules/.bin"
MOCK_PORT="${MOCK_PORT:-8765}"
MOCK_URL="http://127.0.0.1:$MOCK_PORT"
# Codex: unset = the client's own default model (code-mode tools in 0.171); codex-classic uses CODEX_CLASSIC_MODEL.
CODEX_MODEL="${CODEX_MODEL:-}"
CODEX_CLASSIC_MODEL="${CODEX_CLASSIC_MODEL:-gpt-5.5}"
# "openai" = the built-in provider pointed at the mock via openai_base_url (what real sessions record);
# any other id = a [model_providers.<id>] entry.
CODEX_PROVIDER="${CODEX_PROVIDER:-openai}"
OPENCODE_PROVIDER_NPM="${OPENCODE_PROVIDER_NPM:-@ai-sdk/openai-compatible}"
OPENCODE_MODEL_ID="${OPENCODE_MODEL_ID:-mock-model}"
BASE_PATH="${FERRY_PATH:-/usr/local/bin:/usr/bin:/bin}"

die() { echo "error: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "missing tool: $1"; }

check_prereqs() {
  need node; need unshare; need ip; need sqlite3; need jq; need timeout
  [ -x "$BIN/claude" ] && [ -x "$BIN/codex" ] && [ -x "$BIN/opencode" ] \
    || die "clients not installed in $CLIENTS_DIR (run setup.sh)"
}

client_version() {
  case "$1" in
    claude-code) node -p "require('$CLIENTS_DIR/node_modules/@anthropic-ai/claude-code/package.json').version" ;;
    codex*) node -p "require('$CLIENTS_DIR/node_modules/@openai/codex/package.json').version" ;;
    opencode) node -p "require('$CLIENTS_DIR/node_modules/opencode-ai/package.json').version" ;;
  esac
}

# --- client configuration written into a throwaway home --------------------------------

# $1 = CODEX_HOME, $2 = model ('' = client default), $3 = provider id (default $CODEX_PROVIDER)
# Codex refuses to resume a thread under a different provider id than the one it was recorded
# with, and reserves built-in ids (openai, ollama, lmstudio, ...) from [model_providers]; so the
# built-in "openai" provider is redirected with openai_base_url, any other id gets a custom entry.
write_codex_config() {
  local home="$1" model="$2" prov="${3:-$CODEX_PROVIDER}"
  mkdir -p "$home"
  {
    [ -n "$model" ] && echo "model = \"$model\""
    echo "model_provider = \"$prov\""
    echo 'approval_policy = "never"'
    echo 'sandbox_mode = "danger-full-access"'
    echo 'check_for_update_on_startup = false'
    [ "$prov" = openai ] && echo "openai_base_url = \"$MOCK_URL/v1\""
    printf '\n[analytics]\nenabled = false\n\n[feedback]\nenabled = false\n'
    if [ "$prov" != openai ]; then
      printf '\n[model_providers.%s]\nname = "Ferry mock (%s)"\nbase_url = "%s/v1"\nenv_key = "FERRY_MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n' "$prov" "$prov" "$MOCK_URL"
    fi
  } > "$home/config.toml"
}

# $1 = XDG_CONFIG_HOME. OPENCODE_MODEL_EXTRA (optional): more JSON members for the mock model entry,
# e.g. "$OPENCODE_IMAGE_MODEL" (a model that accepts images, so OpenCode sends image attachments
# instead of "ERROR: Cannot read image"); unset = unchanged config.
OPENCODE_IMAGE_MODEL='"attachment": true, "modalities": { "input": ["text", "image"], "output": ["text"] }'
write_opencode_config() {
  mkdir -p "$1/opencode"
  cat > "$1/opencode/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "ferrymock/$OPENCODE_MODEL_ID",
  "small_model": "ferrymock/$OPENCODE_MODEL_ID",
  "enabled_providers": ["ferrymock"],
  "permission": { "edit": "allow", "bash": "allow", "webfetch": "deny", "external_directory": "allow" },
  "provider": {
    "ferrymock": {
      "npm": "$OPENCODE_PROVIDER_NPM",
      "name": "Ferry mock",
      "options": { "baseURL": "$MOCK_URL/v1", "apiKey": "mock-key" },
      "models": {
        "$OPENCODE_MODEL_ID": { "name": "Ferry mock model", "tool_call": true, "reasoning": true, "limit": { "context": 200000, "output": 8192 }${OPENCODE_MODEL_EXTRA:+, $OPENCODE_MODEL_EXTRA} }
      }
    }
  }
}
EOF
}

# --- environments (always used with `env -i`, so nothing leaks in from the caller) -------

claude_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-ferry-mock-0000 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1 \
    IS_SANDBOX=1
}
codex_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" CODEX_HOME="$1/.codex" TERM=dumb LANG=C.UTF-8 \
    FERRY_MOCK_API_KEY=mock-key OPENAI_API_KEY=sk-ferry-mock-0000 RUST_LOG=error
}
opencode_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    XDG_CONFIG_HOME="$1/.config" XDG_DATA_HOME="$1/.local/share" XDG_STATE_HOME="$1/.local/state" XDG_CACHE_HOME="$1/.cache" \
    OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
    OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_CLAUDE_CODE=1
}

# run_in_netns LOG WORKDIR MODE OUT ERR -- cmd...   (the only way any client is ever started)
run_in_netns() {
  local log="$1" wd="$2" mode="$3" out="$4" err="$5"; shift 6
  unshare -n "$HERE/lib/netns-run.sh" --log "$log" --workdir "$wd" --mode "$mode" --port "$MOCK_PORT" \
    --out "$out" --err "$err" ${MOCK_STEPS:+--steps "$MOCK_STEPS"} -- "$@"
}

# make_png FILE: an 8x8 RGB PNG (the image the `image` step reads), written with Node built-ins
make_png() {
  node -e '
const zlib = require("zlib"), fs = require("fs");
const crc = (b) => { let c, t = []; for (let n = 0; n < 256; n++) { c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; t[n] = c >>> 0; } let x = 0xffffffff; for (const v of b) x = t[(x ^ v) & 0xff] ^ (x >>> 8); return (x ^ 0xffffffff) >>> 0; };
const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const td = Buffer.concat([Buffer.from(type), data]); const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([len, td, c]); };
const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(8, 0); ihdr.writeUInt32BE(8, 4); ihdr[8] = 8; ihdr[9] = 2;
const raw = Buffer.alloc(8 * 25); for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) { const o = y * 25 + 1 + x * 3; raw[o] = x * 32; raw[o + 1] = y * 32; raw[o + 2] = 200; }
fs.writeFileSync(process.argv[1], Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]));
' "$1"
}
