/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['grok'],
  packages: [],
  verified: { client: 'Grok Build', versions: [], date: '2026-11-29', how: 'against the upstream source, not a real client' },
  notCovered: ['Never run against a real client', '`session_search.sqlite`, `signals.json`, `events.jsonl`, `rewind_points.jsonl` and `compaction_checkpoints/` are not read'],
  // Grok Build items passed through on purpose (lib/harness/grok/source.ts).
  known: [
    'grok/file',
    'grok/system',
    'grok/updates',
    'grok/backend_tool_call',
    'grok/reasoning',
  ],
}
