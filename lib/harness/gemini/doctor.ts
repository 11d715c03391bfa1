/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['gemini'],
  packages: ['@google/gemini-cli'],
  verified: { client: 'Gemini CLI', versions: ['0.61.0'], date: '2026-12-07', how: 'offline through ../shared/realclients' },
  notCovered: [],
  // Gemini CLI records passed through on purpose (lib/harness/gemini/source.ts).
  known: [
    'gemini/$set',
    'gemini/function-response',
    'gemini/checkpoint',
    'gemini/info',
    'gemini/error',
    'gemini/warning',
  ],
}
