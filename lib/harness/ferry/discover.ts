/**
 * Claiming a path for the interchange stream: stdin (`-`), or a file (plain
 * or zstd) whose first bytes are a ferry record or a Messages-style JSON
 * document. There is no store to list, so there is no `discover`.
 */
import { stat } from 'node:fs/promises'
import { basename, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { headBytes } from '../../io/bytes.js'
import type { SessionInfo } from '../types.js'
import { HARNESS, STDIN } from './paths.js'

function info(path: string): SessionInfo {
  const id = path === STDIN ? 'stdin' : basename(path)
  return { harness: HARNESS, id, sid: `${HARNESS}:${id}`, path, locator: path === STDIN ? {} : { path } }
}

export async function resolve(_ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (ref === STDIN) return info(STDIN)
  const path = resolvePath(ref)
  try {
    const st = await stat(path)
    if (!st.isFile()) return null
    if (!(await looksLikeInterchange(path))) return null
    return { ...info(path), bytes: st.size }
  } catch {
    return null
  }
}

/** First non-blank bytes (decompressed, for a `.jsonl.zst`) are `{"kind":` (a record) or a JSON document start. */
async function looksLikeInterchange(path: string): Promise<boolean> {
  const head = (await headBytes(path, 4096)).toString('utf8').replace(/^\uFEFF/, '').trimStart()
  if (/^\{\s*"kind"\s*:/.test(head)) return true
  // A Messages document: an object whose text mentions "messages", or a bare array of role objects.
  // An OpenCode export document ({info, messages: [{info, parts}]}) also has "messages": not ours.
  if (/^\{\s*"info"\s*:/.test(head) || /"parts"\s*:/.test(head)) return false
  // A first line that is a whole JSON object makes the file JSON lines: a Messages document only
  // if that object holds the messages (Gemini CLI's chat files mention "messages" further down).
  const nl = head.indexOf('\n')
  if (nl > 0) {
    try {
      const first = JSON.parse(head.slice(0, nl)) as unknown
      if (first && typeof first === 'object' && !Array.isArray(first)) return Array.isArray((first as { messages?: unknown }).messages)
    } catch {
      // Not one line: a document spread over lines.
    }
  }
  return (/^\{/.test(head) && /"messages"\s*:/.test(head)) || /^\[\s*\{\s*"role"/.test(head)
}
