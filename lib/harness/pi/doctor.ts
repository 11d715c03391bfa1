/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, and the native types the reader produces on purpose.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['pi'],
  packages: ['@mariozechner/pi-coding-agent'],
  verified: { client: 'pi', versions: ['0.73.1'], date: '2026-12-07', how: 'offline through ../shared/realclients and conformance/' },
  notCovered: [],
  // pi entry types passed through on purpose (lib/harness/pi/source.ts).
  known: [
    'pi/message',
    'pi/model_change',
    'pi/thinking_level_change',
    'pi/label',
    'pi/session_info',
    'pi/custom',
    'pi/custom_message',
    'pi/branch_summary',
    'pi/compaction',
  ],
}
