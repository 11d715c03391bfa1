/**
 * What `ferry stats` needs beyond the conversation: an assistant entry off the active branch (a
 * rewound or regenerated answer, a duplicate uuid) is not a message of the read, but its response
 * was billed. The reader keeps it as a `native` record (with `native: true`); this gives its usage.
 * One response written as several entries (one per content block) has one message id: `stats`
 * counts it once.
 */
import { isObj, type NativeRec } from '../../model.js'
import type { NativeUsage } from '../types.js'
import { usageFromNative } from './blocks.js'
import { HARNESS } from './paths.js'

export function nativeUsage(rec: NativeRec): NativeUsage | undefined {
  if (rec.native_type !== `${HARNESS}/assistant` || rec.x?.[`${HARNESS}.inactive`] !== true || typeof rec.native?.raw !== 'string') return undefined
  let obj: unknown
  try {
    obj = JSON.parse(rec.native.raw)
  } catch {
    return undefined
  }
  const msg = isObj(obj) && isObj(obj.message) ? obj.message : undefined
  const usage = usageFromNative(msg?.usage)
  if (!isObj(obj) || !msg || !usage) return undefined
  return {
    usage,
    ts: typeof obj.timestamp === 'string' ? obj.timestamp : null,
    ...(typeof msg.model === 'string' ? { model: msg.model } : {}),
    ...(typeof msg.id === 'string' ? { api_message_id: msg.id } : {}),
  }
}
