/** Shape checks for parsed Grok JSON, whose every field is untrusted. */

/** A JSON object (not an array, not null, not the Error `parseJsonLine` returns for a bad line). */
export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Error)
}
