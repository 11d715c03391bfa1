/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['cursor-agent'],
  packages: [],
  verified: { client: 'Cursor', versions: [], date: '2026-12-07', how: 'against files laid out as Cursor lays them out; no client runs here' },
  notCovered: ['Never run against a real client'],
  // Cursor records passed through on purpose (lib/harness/cursor/).
  known: [
    'cursor/system',
    'cursor/bubble-empty',
  ],
}
