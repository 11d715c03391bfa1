/**
 * `summary.json` in either spelling: Grok writes snake_case (`session_summary`,
 * `current_model_id`, …; xai-grok-shell `session::persistence::Summary`),
 * early 0.2.x builds wrote camelCase (`sessionSummary`, `currentModelId`, …).
 * Every reader takes the snake_case names; a camelCase key fills its snake_case
 * twin only when that is absent, so a file with both reads as Grok reads it.
 */
import { isObj, type JsonObject } from '../../model.js'

function snake(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** The summary with camelCase keys also under their snake_case names (top level and `info`). */
export function snakeSummary(v: JsonObject): JsonObject {
  const out: JsonObject = { ...v }
  for (const [k, val] of Object.entries(v)) {
    const s = snake(k)
    if (s !== k && !(s in out)) out[s] = val
  }
  if (isObj(out.info)) {
    const info: JsonObject = { ...out.info }
    for (const [k, val] of Object.entries(out.info)) {
      const s = snake(k)
      if (s !== k && !(s in info)) info[s] = val
    }
    out.info = info
  }
  return out
}
