/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['qwen'],
  packages: ['@qwen-code/qwen-code'],
  verified: { client: 'Qwen Code', versions: ['0.24.4'], date: '2026-12-07', how: 'offline through ../shared/realclients' },
  notCovered: [],
  // Qwen Code records passed through on purpose (lib/harness/qwen/source.ts).
  known: [
    'qwen/system:*',
  ],
}
