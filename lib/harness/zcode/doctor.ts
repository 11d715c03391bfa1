/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['zcode'],
  packages: [],
  verified: { client: 'ZCode', versions: [], date: '2026-12-02', how: "against ZCode's source mirrors; no client runs here" },
  notCovered: ['Never run against a real client'],
  // ZCode part, message and entry kinds passed through on purpose (lib/harness/zcode/source.ts, lib/harness/family/opencode-parts.ts).
  known: [
    'zcode/step-start',
    'zcode/step-finish',
    'zcode/snapshot',
    'zcode/patch',
    'zcode/agent',
    'zcode/retry',
    'zcode/subtask',
    'zcode/compaction',
    'zcode/message',
    'zcode/message-error',
    'zcode/message-inactive',
    'zcode/session_entry',
    'zcode/timeline',
    'zcode/file',
  ],
}
