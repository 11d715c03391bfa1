/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, the native types the reader produces on purpose, and the verified schema.
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
  // The tables of a 7.7.7 database (a genuine one from ../shared/realclients); the columns of those ferry reads.
  tables: {
    account_state: ['*'],
    account: ['*'],
    control_account: ['*'],
    credential: ['*'],
    data_migration: ['*'],
    event_sequence: ['*'],
    event: ['*'],
    kilo_board_message: ['*'],
    kilo_board: ['*'],
    message: ['id', 'session_id', 'time_created', 'time_updated', 'data'],
    migration: ['*'],
    part: ['id', 'message_id', 'session_id', 'time_created', 'time_updated', 'data'],
    permission: ['*'],
    project_directory: ['*'],
    project: ['*'],
    session_context_epoch: ['*'],
    session_input: ['*'],
    session_message: ['id', 'session_id', 'type', 'seq', 'time_created', 'time_updated', 'data'],
    session_share: ['*'],
    session: ['id', 'project_id', 'workspace_id', 'parent_id', 'slug', 'directory', 'path', 'title', 'version', 'share_url', 'summary_additions', 'summary_deletions', 'summary_files', 'summary_diffs', 'metadata', 'cost', 'tokens_input', 'tokens_output', 'tokens_reasoning', 'tokens_cache_read', 'tokens_cache_write', 'revert', 'permission', 'agent', 'model', 'time_created', 'time_updated', 'time_compacting', 'time_archived'],
    todo: ['*'],
    workspace: ['*'],
  },
}
