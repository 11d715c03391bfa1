/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['kilo'],
  packages: ['@kilocode/cli'],
  verified: { client: 'Kilo CLI', versions: ['7.7.7'], date: '2026-12-07', how: 'offline through ../shared/realclients' },
  notCovered: [],
  // Kilo part and message kinds passed through on purpose (lib/harness/family/opencode-parts.ts).
  known: [
    'kilo/step-start',
    'kilo/step-finish',
    'kilo/snapshot',
    'kilo/patch',
    'kilo/agent',
    'kilo/retry',
    'kilo/subtask',
    'kilo/compaction',
    'kilo/message',
    'kilo/message-error',
    'kilo/message-inactive',
    'kilo/file',
  ],
}
