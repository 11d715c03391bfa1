/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['copilot'],
  packages: ['@github/copilot'],
  verified: { client: 'Copilot CLI', versions: ['1.0.102'], date: '2026-12-07', how: 'offline BYOK against the scripted mock, ../shared/realclients' },
  notCovered: [],
  // Copilot CLI event families passed through on purpose (lib/harness/copilot/events.ts).
  known: [
    'copilot/file',
    'copilot/session.*',
    'copilot/assistant.*',
    'copilot/tool.*',
    'copilot/subagent.*',
    'copilot/hook.*',
    'copilot/skill.*',
    'copilot/system.*',
    'copilot/user.*',
    'copilot/abort',
  ],
}
