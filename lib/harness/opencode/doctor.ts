/**
 * What `ferry doctor` knows of this agent: its program, the versions the format was verified
 * against (the format doc's `Last verified` line says the same; a test compares them), what is
 * known not to be covered, the native types the reader produces on purpose, and the verified schema.
 */
import type { DoctorSpec } from '../types.js'

export const doctor: DoctorSpec = {
  bins: ['opencode'],
  packages: ['opencode-ai'],
  verified: { client: 'OpenCode', versions: ['1.18.33'], date: '2026-12-07', how: 'offline through conformance/' },
  notCovered: ['OpenCode 2.0.x verified against its upstream schema only (no 2.x client run)'],
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
    // OpenCode 2's session_message types kept as native rows (lib/harness/family/opencode-v2-read.ts).
    'opencode/model-switched',
    'opencode/agent-switched',
    'opencode/location-switched',
    'opencode/compaction-running',
    'opencode/compaction-failed',
  ],
  // The tables of a 1.18.33 database (a genuine one from ../shared/realclients); the columns of those ferry reads.
  tables: {
    account: ['*'],
    account_state: ['*'],
    control_account: ['*'],
    credential: ['*'],
    data_migration: ['*'],
    event: ['*'],
    event_sequence: ['*'],
    message: ['id', 'session_id', 'time_created', 'time_updated', 'data'],
    migration: ['*'],
    part: ['id', 'message_id', 'session_id', 'time_created', 'time_updated', 'data'],
    permission: ['*'],
    project: ['*'],
    project_directory: ['*'],
    session: ['id', 'project_id', 'workspace_id', 'parent_id', 'slug', 'directory', 'path', 'title', 'version', 'share_url', 'summary_additions', 'summary_deletions', 'summary_files', 'summary_diffs', 'metadata', 'cost', 'tokens_input', 'tokens_output', 'tokens_reasoning', 'tokens_cache_read', 'tokens_cache_write', 'revert', 'permission', 'agent', 'model', 'time_created', 'time_updated', 'time_compacting', 'time_archived'],
    session_context_epoch: ['*'],
    session_input: ['*'],
    session_message: ['id', 'session_id', 'type', 'seq', 'time_created', 'time_updated', 'data'],
    session_share: ['*'],
    todo: ['*'],
    workspace: ['*'],
    // OpenCode 2's (the v2 reader of issue #42, fixtures/opencode/opencode2-db.mjs): the migration marker and the v2 sessions.
    kv: ['*'],
    session_v2: ['id', 'project_id', 'workspace_id', 'parent_id', 'fork_session_id', 'fork_boundary', 'slug', 'directory', 'path', 'title', 'version', 'share_url', 'summary_additions', 'summary_deletions', 'summary_files', 'summary_diffs', 'metadata', 'cost', 'tokens_input', 'tokens_output', 'tokens_reasoning', 'tokens_cache_read', 'tokens_cache_write', 'revert', 'permission', 'agent', 'model', 'time_created', 'time_updated', 'time_idle', 'time_viewed', 'idle_outcome', 'time_compacting', 'time_archived', 'time_suspended', 'resume_attempts'],
  },
}
