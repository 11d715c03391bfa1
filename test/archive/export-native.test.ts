/**
 * The export's `native` column splices the source line into the stored pass
 * (lib/archive/export.ts, nativeJson) instead of parsing and writing the pass
 * again: the text must be what JSON.stringify of the pass with its `raw` gives.
 */
import t from 'tap'
import { nativeJson } from '../../lib/archive/export.js'
import { nativeOf, storedParts } from '../../lib/archive/store/store.js'
import type { FerryRecord } from '../../lib/model.js'

t.test('the spliced native is JSON.stringify of the pass with its line', async (t) => {
  const line = '{"type":"user","message":{"content":"é ✓ 😀 \\"quoted\\" \\\\ \\u0001"},"raw":"not the pass\'s"}'
  const passes: Array<[string, Record<string, unknown>]> = [
    ['a pass with a row and a file', { format: 'claude-code/jsonl@2.1.3', file: 'a.jsonl', line: 3, raw: line }],
    ['a pass holding only the line', { raw: line }],
    ['the line first, keys after it', { raw: line, format: 'codex/jsonl', x: { '1': 'integer-like key', b: [1, 'two'] } }],
    ['a line with a lone surrogate and control characters', { format: 'f', raw: 'a\ud800b\u0000\n\t' }],
    ['a pass whose own text names "raw": in a value', { format: 'f', note: 'has "raw": inside', raw: line }],
  ]
  for (const [name, pass] of passes) {
    const rec = { kind: 'native', sid: 'codex:x', id: 'codex:x:1', native_type: 'codex/x', ts: null, native: pass } as unknown as FerryRecord
    const p = storedParts(rec)
    t.equal(nativeJson(p.native, p.raw), JSON.stringify(nativeOf(p.native, p.raw)), name)
  }
  t.equal(nativeJson(null, null), null, 'no pass')
  t.equal(nativeJson('{"format":"f"}', null), '{"format":"f"}', 'a pass without a line is the stored text')
  t.equal(nativeJson('{}', 'x'), '{"raw":"x"}', 'an empty pass')
})
