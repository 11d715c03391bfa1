/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['opencode'],
  packages: ['opencode-ai'],
  verified: { client: 'OpenCode', versions: ['1.18.33'], date: '2026-12-02', how: 'offline through conformance/' },
  notCovered: ['OpenCode 2 (`session_v2`, `session_message`) is not read yet'],
  // OpenCode part and message kinds passed through on purpose (lib/harness/family/opencode-parts.ts).
  known: [
    'opencode/step-start',
    'opencode/step-finish',
    'opencode/snapshot',
    'opencode/patch',
    'opencode/agent',
    'opencode/retry',
    'opencode/subtask',
    'opencode/compaction',
    'opencode/message',
    'opencode/message-error',
    'opencode/message-inactive',
    'opencode/file',
  ],
}
