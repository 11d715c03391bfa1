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

# wave-3 clients: each installed in its own prefix $W3_DIR/<id>/node_modules (setup-wave3.sh, ./setup.sh --wave3)
W3_DIR="${FERRY_WAVE3_DIR:-$HOME/.cache/ferry-acceptance/clients-wave3}"
w3_bin() { # $1 = client id -> path of its executable
  case "$1" in
    pi) echo "$W3_DIR/pi/node_modules/.bin/pi" ;;
    gemini) echo "$W3_DIR/gemini/node_modules/.bin/gemini" ;;
    qwen) echo "$W3_DIR/qwen/node_modules/.bin/qwen" ;;
    copilot) echo "$W3_DIR/copilot/node_modules/.bin/copilot" ;;
    kilo) echo "$W3_DIR/kilo/node_modules/.bin/kilo" ;;
  esac
}
# (Crush and Auggie are not supported: see README "Not supported")
W3_CLIENTS="pi gemini qwen copilot kilo"
is_w3() { case " $W3_CLIENTS " in *" $1 "*) return 0 ;; esac; return 1; }

# check_prereqs [CLIENT...]: base tools, plus the binaries of the named clients
# (no argument: the original three, as before)
check_prereqs() {
  need node; need unshare; need ip; need sqlite3; need jq; need timeout
  local c need_orig=0
  [ $# -eq 0 ] && need_orig=1
  for c in "$@"; do
    if is_w3 "$c"; then [ -x "$(w3_bin "$c")" ] || die "$c not installed in $W3_DIR/$c (run ./setup.sh --wave3)"
    else need_orig=1; fi
  done
  if [ "$need_orig" = 1 ]; then
    [ -x "$BIN/claude" ] && [ -x "$BIN/codex" ] && [ -x "$BIN/opencode" ] \
      || die "clients not installed in $CLIENTS_DIR (run setup.sh)"
  fi
}

client_version() {
  case "$1" in
    claude-code) node -p "require('$CLIENTS_DIR/node_modules/@anthropic-ai/claude-code/package.json').version" ;;
    codex*) node -p "require('$CLIENTS_DIR/node_modules/@openai/codex/package.json').version" ;;
    opencode) node -p "require('$CLIENTS_DIR/node_modules/opencode-ai/package.json').version" ;;
    pi) node -p "require('$W3_DIR/pi/node_modules/@mariozechner/pi-coding-agent/package.json').version" ;;
    gemini) node -p "require('$W3_DIR/gemini/node_modules/@google/gemini-cli/package.json').version" ;;
    qwen) node -p "require('$W3_DIR/qwen/node_modules/@qwen-code/qwen-code/package.json').version" ;;
    copilot) node -p "require('$W3_DIR/copilot/node_modules/@github/copilot/package.json').version" ;;
    kilo) node -p "require('$W3_DIR/kilo/node_modules/@kilocode/cli/package.json').version" ;;
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
# CLIENT_STDIN=FILE: the client's stdin (default /dev/null; Claude Code's --input-format stream-json reads it)
run_in_netns() {
  local log="$1" wd="$2" mode="$3" out="$4" err="$5"; shift 6
  unshare -n "$HERE/lib/netns-run.sh" --log "$log" --workdir "$wd" --mode "$mode" --port "$MOCK_PORT" \
    --out "$out" --err "$err" ${MOCK_STEPS:+--steps "$MOCK_STEPS"} ${CLIENT_STDIN:+--stdin "$CLIENT_STDIN"} -- "$@"
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

# ======================================================================================
# wave 3: Pi, Gemini CLI, Qwen Code, Copilot CLI, Kilo CLI (setup-wave3.sh / ./setup.sh --wave3)
# ======================================================================================

# --- Pi (@mariozechner/pi-coding-agent) -------------------------------------------------
# Custom provider "ferrymock" in $PI_CODING_AGENT_DIR/models.json. PI_API picks its wire:
# anthropic-messages (default) | openai-completions | openai-responses | google-generative-ai
PI_API="${PI_API:-anthropic-messages}"
PI_MODEL_ID="${PI_MODEL_ID:-mock-model}"
write_pi_config() { # $1 = agent dir ($HOME/.pi/agent)
  local base="$MOCK_URL"
  case "$PI_API" in openai-*) base="$MOCK_URL/v1" ;; google-*) base="$MOCK_URL/v1beta" ;; esac
  mkdir -p "$1"
  cat > "$1/models.json" <<JSON
{
  "providers": {
    "ferrymock": {
      "baseUrl": "$base",
      "api": "$PI_API",
      "apiKey": "sk-ferry-mock-0000",
      "models": [
        { "id": "$PI_MODEL_ID", "name": "Ferry mock model", "reasoning": true, "input": ["text", "image"],
          "contextWindow": 200000, "maxTokens": 8192, "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0 } }
      ]
    }
  }
}
JSON
  cat > "$1/settings.json" <<JSON
{ "defaultProvider": "ferrymock", "defaultModel": "$PI_MODEL_ID", "quietStartup": true }
JSON
}
pi_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    PI_CODING_AGENT_DIR="$1/.pi/agent" PI_OFFLINE=1 PI_TELEMETRY=0
}

# --- Gemini CLI (@google/gemini-cli) ----------------------------------------------------
# GOOGLE_GEMINI_BASE_URL redirects the @google/genai client (AuthType "gateway" when set;
# GEMINI_API_KEY is a dummy). Wire: POST /v1beta/models/<model>:streamGenerateContent?alt=sse.
GEMINI_MODEL="${GEMINI_MODEL:-gemini-2.5-pro}"
write_gemini_config() { # $1 = $HOME/.gemini
  mkdir -p "$1"
  cat > "$1/settings.json" <<JSON
{
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } },
  "ui": { "hideBanner": true, "hideTips": true },
  "model": { "name": "$GEMINI_MODEL" }
}
JSON
}
gemini_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    GOOGLE_GEMINI_BASE_URL="$MOCK_URL" GEMINI_API_KEY=ferry-mock-key-0000 \
    GEMINI_CLI_NO_RELAUNCH=true GEMINI_SANDBOX=false NO_BROWSER=true CI=true
}

# --- Qwen Code (@qwen-code/qwen-code) ---------------------------------------------------
# auth type "openai" = OpenAI Chat Completions (OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL);
# QWEN_AUTH_TYPE=openai-responses | anthropic | gemini pick another wire (not used by default).
QWEN_MODEL="${QWEN_MODEL:-mock-model}"
QWEN_AUTH_TYPE="${QWEN_AUTH_TYPE:-openai}"
write_qwen_config() { # $1 = $HOME/.qwen
  mkdir -p "$1"
  cat > "$1/settings.json" <<JSON
{
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "security": { "auth": { "selectedType": "$QWEN_AUTH_TYPE" }, "folderTrust": { "enabled": false } },
  "ui": { "hideBanner": true, "hideTips": true },
  "model": { "name": "$QWEN_MODEL" }
}
JSON
}
qwen_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-ferry-mock-0000 OPENAI_MODEL="$QWEN_MODEL" \
    ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-ferry-mock-0000 \
    QWEN_CODE_NO_RELAUNCH=true GEMINI_CLI_NO_RELAUNCH=true NO_BROWSER=true CI=true
}

# --- GitHub Copilot CLI (@github/copilot) -------------------------------------------------
# BYOK + offline: COPILOT_PROVIDER_BASE_URL activates a custom provider (no GitHub auth),
# COPILOT_OFFLINE=true stops every other network access. COPILOT_PROVIDER_TYPE picks the wire:
# anthropic (default here: /v1/messages) | openai (+ COPILOT_PROVIDER_WIRE_API=completions|responses).
COPILOT_PROVIDER_TYPE="${COPILOT_PROVIDER_TYPE:-anthropic}"
COPILOT_MODEL="${COPILOT_MODEL:-claude-sonnet-4.5}"
copilot_env() { # $1 = HOME
  local base="$MOCK_URL"; [ "$COPILOT_PROVIDER_TYPE" = anthropic ] || base="$MOCK_URL/v1"
  echo PATH="$BASE_PATH" HOME="$1" COPILOT_HOME="$1/.copilot" TERM=dumb LANG=C.UTF-8 \
    COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="$base" COPILOT_PROVIDER_TYPE="$COPILOT_PROVIDER_TYPE" \
    COPILOT_PROVIDER_API_KEY=sk-ferry-mock-0000 COPILOT_MODEL="$COPILOT_MODEL" \
    ${COPILOT_PROVIDER_WIRE_API:+COPILOT_PROVIDER_WIRE_API=$COPILOT_PROVIDER_WIRE_API} \
    ${COPILOT_PROVIDER_MAX_PROMPT_TOKENS:+COPILOT_PROVIDER_MAX_PROMPT_TOKENS=$COPILOT_PROVIDER_MAX_PROMPT_TOKENS} \
    COPILOT_AUTO_UPDATE=false COPILOT_ALLOW_ALL=1 CI=true NO_COLOR=1
}

# --- Kilo CLI (@kilocode/cli 7.x: an OpenCode fork; store kilo.db) ---------------------
# Same provider config schema as OpenCode, read from $XDG_CONFIG_HOME/kilo/kilo.json.
write_kilo_config() { # $1 = XDG_CONFIG_HOME
  local tmp; tmp="$(mktemp -d)"
  write_opencode_config "$tmp"
  mkdir -p "$1/kilo"
  jq 'del(."$schema")' "$tmp/opencode/opencode.json" > "$1/kilo/kilo.json"
  rm -rf "$tmp"
}
kilo_env() { # $1 = HOME
  echo PATH="$BASE_PATH" HOME="$1" TERM=dumb LANG=C.UTF-8 \
    XDG_CONFIG_HOME="$1/.config" XDG_DATA_HOME="$1/.local/share" XDG_STATE_HOME="$1/.local/state" XDG_CACHE_HOME="$1/.cache" \
    KILO_DISABLE_AUTOUPDATE=1 KILO_DISABLE_MODELS_FETCH=1 KILO_DISABLE_LSP_DOWNLOAD=1 KILO_DISABLE_DEFAULT_PLUGINS=1 \
    KILO_DISABLE_SHARE=1 KILO_DISABLE_CLAUDE_CODE=1 KILO_DISABLE_SESSION_INGEST=1 \
    OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1
}
