/**
 * redact: removes secrets (and optionally home paths, user names, e-mail
 * addresses) from every place they hide in a record stream.
 *
 * Options (`RedactTransformOptions`):
 * - `paths`     home directories → `~`, the user name → `user` (default off)
 * - `emails`    e-mail addresses (default off)
 * - `rulesFile` extra rules, one `kind regex` per line
 * - `allow`     exact values never redacted
 * - `images`    also drop image/file payloads that contain a secret-looking text (default off: base64 is not scanned)
 * - `check`     emit no records; only find (for `--check`)
 * - `onFind`    called for each record with findings: `{sid, id, kinds}`
 * - `redactor`  share one engine (and so one label numbering) across streams
 *
 * What is scanned: text, thinking text, tool_use `input` and `native_input`,
 * tool_result `content` and `structured`, unknown blocks, `x` extras,
 * session `title`/`cwd`/`git.remote`, boundary `summary`, end `title`, and
 * `native.raw` / `native.row` / `native.merged` of every record (JSON text:
 * secrets appear there with escapes; labels keep the JSON valid).
 *
 * Stream rules: a message whose modelled content changed loses `native` (its
 * bytes no longer match); a `native` record (no modelled content) keeps
 * `native` with `raw` rewritten consistently. Thinking blocks whose text
 * changed lose `signature`/`encrypted`. Every session header gets
 * `redacted: true` (tool inputs may not be what really ran); that flag alone
 * does not remove the header's `native`. Ids never change.
 */
import type { Transform } from 'node:stream'
import type { Block, FerryRecord, MessageRec, NativePass, SessionRec, StreamRec } from '../lib/model.js'
import { Redactor, type RedactOptions } from '../lib/redact/engine.js'
import { mapStrings, recordTransform } from './util.js'

export interface RedactFinding {
  sid: string
  id: string
  kinds: Record<string, number>
}

export interface RedactTransformOptions extends RedactOptions {
  check?: boolean
  onFind?: (f: RedactFinding) => void
  redactor?: Redactor
}

export function redact(opts: RedactTransformOptions = {}): Transform {
  const engine = opts.redactor ?? new Redactor(opts)
  let found: Record<string, number> | null = null
  const note = (kind: string): void => {
    found ??= {}
    found[kind] = (found[kind] ?? 0) + 1
  }
  const red = (s: string): string => engine.redact(s, note)
  const deep = <T>(v: T): T => mapStrings(v, red) as T

  function block(b: Block): Block {
    switch (b.type) {
      case 'text': {
        const t = red(b.text)
        return t === b.text ? b : { ...b, text: t }
      }
      case 'thinking': {
        const t = red(b.text)
        if (t === b.text) return b
        const { signature: _s, encrypted: _e, ...rest } = b
        return { ...rest, text: t }
      }
      case 'tool_use': {
        const input = deep(b.input)
        const ni = b.native_input === undefined ? undefined : deep(b.native_input)
        if (input === b.input && ni === b.native_input) return b
        return { ...b, input, ...(ni === undefined ? {} : { native_input: ni }) }
      }
      case 'tool_result': {
        const content = deep(b.content)
        const structured = b.structured === undefined ? undefined : deep(b.structured)
        if (content === b.content && structured === b.structured) return b
        return { ...b, content, ...(structured === undefined ? {} : { structured }) }
      }
      case 'unknown': {
        const value = deep(b.value)
        return value === b.value ? b : { ...b, value }
      }
      default:
        return b
    }
  }

  function nativeOf(n: NativePass): NativePass {
    const raw = n.raw === undefined ? undefined : red(n.raw)
    const row = n.row === undefined ? undefined : deep(n.row)
    const merged = n.merged === undefined ? undefined : deep(n.merged)
    if (raw === n.raw && row === n.row && merged === n.merged) return n
    return { ...n, ...(raw === undefined ? {} : { raw }), ...(row === undefined ? {} : { row }), ...(merged === undefined ? {} : { merged }) }
  }

  function one(rec: Exclude<FerryRecord, StreamRec>): Exclude<FerryRecord, StreamRec> {
    let out: Exclude<FerryRecord, StreamRec> = rec
    let changed = false
    const x = rec.x === undefined ? undefined : deep(rec.x)
    if (x !== rec.x) {
      out = { ...out, x } as typeof out
      changed = true
    }
    switch (rec.kind) {
      case 'session': {
        const s = out as SessionRec
        const title = s.title === undefined ? undefined : red(s.title)
        const cwd = s.cwd === undefined ? undefined : red(s.cwd)
        const remote = s.git?.remote === undefined ? undefined : red(s.git.remote)
        const next: SessionRec = { ...s, redacted: true }
        if (title !== s.title) (next.title = title), (changed = true)
        if (cwd !== s.cwd) (next.cwd = cwd), (changed = true)
        if (remote !== s.git?.remote) (next.git = { ...s.git, remote }), (changed = true)
        out = next
        break
      }
      case 'message': {
        const m = out as MessageRec
        let blocks: Block[] | null = null
        m.blocks.forEach((b, i) => {
          const n = block(b)
          if (n !== b) {
            blocks ??= m.blocks.slice()
            blocks[i] = n
          }
        })
        if (blocks) {
          out = { ...m, blocks }
          changed = true
        }
        break
      }
      case 'boundary': {
        if (out.kind === 'boundary' && out.summary !== undefined) {
          const s = red(out.summary)
          if (s !== out.summary) (out = { ...out, summary: s }), (changed = true)
        }
        break
      }
      case 'end': {
        if (out.kind === 'end' && out.title !== undefined) {
          const t = red(out.title)
          if (t !== out.title) (out = { ...out, title: t }), (changed = true)
        }
        break
      }
    }
    if (out.native) {
      if (changed && rec.kind !== 'native') {
        const { native: _n, ...rest } = out
        out = rest as typeof out
      } else {
        const n = nativeOf(out.native)
        if (n !== out.native) out = { ...out, native: n } as typeof out
      }
    }
    return out
  }

  return recordTransform((rec, push) => {
    if (rec.kind === 'stream') {
      if (!opts.check) push(rec)
      return
    }
    found = null
    const out = one(rec)
    if (found && opts.onFind) opts.onFind({ sid: rec.sid, id: rec.id, kinds: found })
    if (!opts.check) push(out)
  })
}
