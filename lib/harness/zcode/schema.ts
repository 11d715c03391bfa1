/**
 * ZCode's database schema as its migration ledger builds it, restated in
 * ferry's own words (column names, types, nullability, defaults, checks,
 * foreign keys, index and trigger names are ZCode's; the SQL text is ours).
 * Sources: the migration lists cited in docs/formats/zcode.md (§Sources).
 *
 * Used for two things only: the test fixtures (which replay these steps in
 * order, each recorded in `schema_migration`, the way ZCode's runner does),
 * and `--out FILE`, a standalone export database. Neither is a database ZCode
 * adopts: its runner checksums its own SQL text, which ours is not, so ZCode
 * refuses such a file with `checksum_mismatch` instead of half-migrating it.
 * ferry never creates or migrates the user's own ZCode database.
 *
 * Tables ZCode has but no reader or resume path of ferry's needs (workflow_*,
 * dwf_*, tool_usage, turn_usage) are left out.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'

export interface Migration {
  id: string
  /** The ZCode version that introduced it. */
  appVersion: string
  sql: string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: '0001_base_session_store',
    appVersion: '0.2.0',
    sql: `
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL,
  share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  summary_diffs TEXT, revert TEXT, permission TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER
);
CREATE INDEX session_project_idx ON session(project_id);
CREATE INDEX session_workspace_idx ON session(workspace_id);
CREATE INDEX session_parent_idx ON session(parent_id);
CREATE TABLE message (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL
);
CREATE INDEX message_session_time_created_id_idx ON message(session_id, time_created, id);
CREATE TABLE part (
  id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL
);
CREATE INDEX part_message_id_id_idx ON part(message_id, id);
CREATE INDEX part_session_idx ON part(session_id);
CREATE TABLE todo (
  session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL, position INTEGER NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, PRIMARY KEY (session_id, position)
);
CREATE TABLE session_entry (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  type TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL
);
CREATE INDEX session_entry_session_idx ON session_entry(session_id);
CREATE INDEX session_entry_session_type_idx ON session_entry(session_id, type);
CREATE INDEX session_entry_time_created_idx ON session_entry(time_created);
CREATE TABLE permission (project_id TEXT PRIMARY KEY, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE input_history (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, session_id TEXT, text TEXT NOT NULL, kind TEXT NOT NULL, time_created INTEGER NOT NULL
);`,
  },
  {
    id: '0002_local_setting',
    appVersion: '0.2.0',
    sql: `
CREATE TABLE local_setting (
  scope TEXT NOT NULL, scope_id TEXT NOT NULL, namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  schema_version INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  PRIMARY KEY (scope, scope_id, namespace, key)
);`,
  },
  {
    id: '0004_session_target',
    appVersion: '0.7.0',
    sql: `
CREATE TABLE session_target (
  session_id TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
  target_id TEXT NOT NULL, objective TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active','paused','budget_limited','complete')),
  token_budget INTEGER, tokens_used INTEGER NOT NULL DEFAULT 0, time_used_seconds INTEGER NOT NULL DEFAULT 0,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, summary_title TEXT, active_input_id TEXT,
  active_run_started_at INTEGER, active_run_last_seen_at INTEGER
);`,
  },
  { id: '0006_input_history_attachments', appVersion: '0.11.0', sql: `ALTER TABLE input_history ADD COLUMN attachments TEXT;` },
  {
    id: '0007_workflow_script_runtime',
    appVersion: '0.13.0',
    sql: `
ALTER TABLE session ADD COLUMN task_type TEXT NOT NULL DEFAULT 'interactive';
CREATE INDEX session_task_type_idx ON session(task_type);`,
  },
  {
    id: '0009_session_title_metadata',
    appVersion: '0.14.0',
    sql: `
ALTER TABLE session ADD COLUMN title_source TEXT NOT NULL DEFAULT 'first_input' CHECK (title_source IN ('default','first_input','generated','custom'));
ALTER TABLE session ADD COLUMN title_message_id TEXT;
ALTER TABLE session ADD COLUMN time_title_updated INTEGER;`,
  },
  {
    id: '0010_usage_observability',
    appVersion: '0.15.0',
    sql: `
CREATE TABLE model_usage (
  id TEXT PRIMARY KEY, logical_request_id TEXT NOT NULL, attempt_index INTEGER NOT NULL DEFAULT 0,
  session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  turn_id TEXT, trace_id TEXT, span_id TEXT, assistant_message_id TEXT, parent_user_message_id TEXT,
  query_source TEXT NOT NULL, provider_id TEXT NOT NULL, model_id TEXT NOT NULL,
  variant TEXT, agent TEXT, mode TEXT, task_type TEXT,
  status TEXT NOT NULL CHECK (status IN ('running','completed','error','cancelled')),
  started_at INTEGER NOT NULL, first_token_at INTEGER, completed_at INTEGER, duration_ms INTEGER,
  time_to_first_token_ms INTEGER, finish_reason TEXT, tool_call_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0, cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_input_tokens INTEGER NOT NULL DEFAULT 0, provider_total_tokens INTEGER,
  computed_total_tokens INTEGER NOT NULL DEFAULT 0, retry_count INTEGER NOT NULL DEFAULT 0,
  retryable INTEGER NOT NULL DEFAULT 0, cancelled_by_user INTEGER NOT NULL DEFAULT 0,
  context_exceeded INTEGER NOT NULL DEFAULT 0, error_type TEXT, error_code TEXT, error_message TEXT,
  raw_usage_json TEXT, provider_metadata_json TEXT
);`,
  },
  {
    id: '0012_session_trace_id',
    appVersion: '0.15.0',
    sql: `
ALTER TABLE session ADD COLUMN trace_id TEXT;
CREATE INDEX session_trace_idx ON session(trace_id);`,
  },
  {
    id: '0014_message_part_sequence',
    appVersion: '0.15.0',
    sql: `
ALTER TABLE message ADD COLUMN sequence INTEGER;
ALTER TABLE part ADD COLUMN sequence INTEGER;
UPDATE message SET sequence = (SELECT count(*) FROM message o WHERE o.session_id = message.session_id AND (o.time_created < message.time_created OR (o.time_created = message.time_created AND o.id < message.id)));
UPDATE part SET sequence = (SELECT count(*) FROM part o WHERE o.message_id = part.message_id AND (o.time_created < part.time_created OR (o.time_created = part.time_created AND o.id < part.id)));
CREATE INDEX message_session_sequence_idx ON message(session_id, sequence, time_created, id);
CREATE INDEX part_message_sequence_idx ON part(message_id, sequence, time_created, id);
CREATE INDEX part_session_message_sequence_idx ON part(session_id, message_id, sequence);`,
  },
  {
    id: '0015_message_part_sequence_backfill_and_guard',
    appVersion: '0.15.2',
    sql: `
CREATE TRIGGER message_sequence_autofill AFTER INSERT ON message WHEN NEW.sequence IS NULL BEGIN
  UPDATE message SET sequence = (SELECT coalesce(max(sequence), -1) + 1 FROM message WHERE session_id = NEW.session_id) WHERE id = NEW.id;
END;
CREATE TRIGGER part_sequence_autofill AFTER INSERT ON part WHEN NEW.sequence IS NULL BEGIN
  UPDATE part SET sequence = (SELECT coalesce(max(sequence), -1) + 1 FROM part WHERE message_id = NEW.message_id) WHERE id = NEW.id;
END;`,
  },
  {
    id: '0016_session_input',
    appVersion: '0.15.2',
    sql: `
CREATE TABLE session_input (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  kind TEXT NOT NULL, delivery TEXT NOT NULL CHECK (delivery IN ('startNow','guide','queue')),
  payload TEXT NOT NULL, admitted_sequence INTEGER NOT NULL, promoted_sequence INTEGER, promoted_message_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('admitted','promoted','cancelled','discarded','failed')),
  status_reason TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL
);`,
  },
]

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migration (id TEXT PRIMARY KEY, checksum TEXT NOT NULL, app_version TEXT, time_applied INTEGER NOT NULL)`

/** sha256 of the trimmed SQL, as ZCode's runner checksums its own migrations. */
export function checksum(sql: string): string {
  return createHash('sha256').update(sql.trim()).digest('hex')
}

/**
 * Replays `MIGRATIONS` (up to and including `upTo`, default all) the way
 * ZCode's runner does: WAL, foreign keys on, one `BEGIN IMMEDIATE`, each
 * step not yet in the ledger run and recorded. `now` stamps the ledger rows.
 */
export function migrate(db: Database.Database, opts: { upTo?: string; now?: number } = {}): void {
  db.pragma('foreign_keys = ON')
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL')
  const now = opts.now ?? Date.now()
  db.exec('BEGIN IMMEDIATE')
  try {
    db.exec(LEDGER)
    const done = new Set((db.prepare('SELECT id FROM schema_migration').all() as Array<{ id: string }>).map((r) => r.id))
    const ins = db.prepare('INSERT INTO schema_migration (id, checksum, app_version, time_applied) VALUES (?, ?, ?, ?)')
    for (const m of MIGRATIONS) {
      if (!done.has(m.id)) {
        db.exec(m.sql)
        ins.run(m.id, checksum(m.sql), m.appVersion, now)
      }
      if (m.id === opts.upTo) break
    }
    db.exec('COMMIT')
  } catch (err) {
    db.exec('ROLLBACK')
    throw err
  }
}

/** Migration ids of every ZCode build the format notes list (this ferry reads what they leave behind). */
const KNOWN = new Set([
  ...MIGRATIONS.map((m) => m.id),
  '0003_backfill_permission_local_setting',
  '0005_session_target_accounting',
  '0008_workflow_definition_scope',
  '0011_session_target_accounting',
  '0013_session_target_accounting',
  '0017_todo_state_revision',
  '0017_session_input',
  '0018_session_input',
  '0019_dwf_journal',
  '0020_provider_model_selection',
  '0021_official_glm_selection',
  '0022_backfilled_session_reasoning',
  '0023_native_create_receipt',
  '0023_session_soft_delete_outcome',
])

/** Whether a ledger id is one this ferry knows; unknown 00xx_ numbers up to 0023 count as known (names differ between builds). */
export function knownMigration(id: string): boolean {
  if (KNOWN.has(id)) return true
  const n = /^(\d{4})_/.exec(id)
  return n !== null && Number(n[1]) <= 23
}
