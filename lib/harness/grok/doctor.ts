/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['grok'],
  packages: [],
  verified: { client: 'Grok Build', versions: [], date: '2026-12-07', how: 'against the upstream source, not a real client' },
  notCovered: ['Never run against a real client', '`rewind_marker` updates are not applied (rewound turns are kept)', '`events.jsonl`, `signals.json` and `rewind_points.jsonl` are not conversation: carried as sidecars with `--native` only'],
  // Grok Build items passed through on purpose (lib/harness/grok/source.ts).
  known: [
    'grok/file',
    'grok/system',
    'grok/updates',
    'grok/backend_tool_call',
    'grok/reasoning',
  ],
}
