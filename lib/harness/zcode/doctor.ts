/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, the native types the reader produces on purpose, and the verified schema.
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
  // The tables ZCode's migrations create (fixtures/zcode/zcode-db.mjs replays them); the columns of those ferry reads.
  tables: {
    input_history: ['*'],
    local_setting: ['*'],
    message: ['id', 'session_id', 'time_created', 'time_updated', 'data', 'sequence'],
    model_usage: ['*'],
    part: ['id', 'message_id', 'session_id', 'time_created', 'time_updated', 'data', 'sequence'],
    permission: ['*'],
    schema_migration: ['*'],
    session: ['id', 'project_id', 'workspace_id', 'parent_id', 'slug', 'directory', 'path', 'title', 'version', 'share_url', 'summary_additions', 'summary_deletions', 'summary_files', 'summary_diffs', 'revert', 'permission', 'time_created', 'time_updated', 'time_compacting', 'time_archived', 'task_type', 'title_source', 'title_message_id', 'time_title_updated', 'trace_id'],
    session_entry: ['id', 'session_id', 'type', 'time_created', 'time_updated', 'data'],
    session_input: ['*'],
    session_target: ['*'],
    todo: ['*'],
  },
}
