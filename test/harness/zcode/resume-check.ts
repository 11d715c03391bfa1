/**
 * The resume-requirement check (docs/formats/zcode.md §Writing, from the
 * research note's "Minimum rows for a session that ZCode will resume" and
 * "What ZCode reads on resume"): plain SQL over the written rows, one query
 * per requirement, each returning the rows that break it. No script of
 * ZCode's runs here (none can); this is ZCode's reading rules restated as
 * queries. Zero rows from every query = every requirement met.
 */
import Database from 'better-sqlite3'

const TEXTUAL = `('text','reasoning','tool')`

/** [requirement, SQL returning one `what` column per violation; `@id` is the session id]. */
export const REQUIREMENTS: ReadonlyArray<readonly [string, string]> = [
  ['session row exists', `SELECT 'missing' AS what WHERE NOT EXISTS (SELECT 1 FROM session WHERE id = @id)`],
  ['session NOT NULL columns set', `SELECT id AS what FROM session WHERE id = @id AND (coalesce(project_id,'') = '' OR coalesce(slug,'') = '' OR coalesce(directory,'') = '' OR title IS NULL OR coalesce(version,'') = '' OR time_created IS NULL OR time_updated IS NULL)`],
  ['session not archived (resume rejects it)', `SELECT id AS what FROM session WHERE id = @id AND time_archived IS NOT NULL`],
  ['title_source in ZCode set', `SELECT title_source AS what FROM session WHERE id = @id AND title_source NOT IN ('default','first_input','generated','custom')`],
  ['task_type interactive (or a child kind with a parent)', `SELECT task_type AS what FROM session WHERE id = @id AND NOT ((parent_id IS NULL AND task_type = 'interactive') OR (parent_id IS NOT NULL AND task_type IN ('subagent_child','fork')))`],
  ['revert NULL (no branch cut)', `SELECT revert AS what FROM session WHERE id = @id AND revert IS NOT NULL`],
  ['workspace_id NULL (local)', `SELECT workspace_id AS what FROM session WHERE id = @id AND workspace_id IS NOT NULL`],
  ['directory absolute', `SELECT directory AS what FROM session WHERE id = @id AND substr(directory, 1, 1) <> '/'`],
  ['permission valid JSON', `SELECT permission AS what FROM session WHERE id = @id AND permission IS NOT NULL AND NOT json_valid(permission)`],
  ['time_updated >= created and every message', `SELECT s.id AS what FROM session s WHERE s.id = @id AND (s.time_updated < s.time_created OR s.time_updated < (SELECT coalesce(max(time_updated), 0) FROM message WHERE session_id = s.id))`],
  ['message data a JSON object', `SELECT id AS what FROM message WHERE session_id = @id AND NOT (json_valid(data) AND json_type(data) = 'object')`],
  ['message role user|assistant with integer time.created', `SELECT id AS what FROM message WHERE session_id = @id AND json_valid(data) AND (json_extract(data,'$.role') NOT IN ('user','assistant') OR json_type(data,'$.time.created') <> 'integer')`],
  ['message time_created = data.time.created', `SELECT id AS what FROM message WHERE session_id = @id AND json_valid(data) AND time_created <> json_extract(data,'$.time.created')`],
  ['assistant has time.completed, providerId, modelId, tokens', `SELECT id AS what FROM message WHERE session_id = @id AND json_valid(data) AND json_extract(data,'$.role') = 'assistant' AND (json_type(data,'$.time.completed') <> 'integer' OR json_type(data,'$.time.completed') IS NULL OR json_type(data,'$.providerId') IS NOT 'text' OR json_type(data,'$.modelId') IS NOT 'text' OR json_type(data,'$.tokens') IS NOT 'object')`],
  ['assistant parentID is a user message of the session', `SELECT m.id AS what FROM message m WHERE m.session_id = @id AND json_valid(m.data) AND json_extract(m.data,'$.role') = 'assistant' AND NOT EXISTS (SELECT 1 FROM message u WHERE u.session_id = m.session_id AND u.id = json_extract(m.data,'$.parentID') AND json_extract(u.data,'$.role') = 'user')`],
  ['user message has the legacy model object', `SELECT id AS what FROM message WHERE session_id = @id AND json_valid(data) AND json_extract(data,'$.role') = 'user' AND json_type(data,'$.model') IS NOT 'object'`],
  ['message sequence 0..n-1', `SELECT 'sequence' AS what FROM (SELECT count(*) AS n, count(DISTINCT sequence) AS d, min(sequence) AS lo, max(sequence) AS hi, sum(sequence IS NULL) AS nul FROM message WHERE session_id = @id) WHERE n > 0 AND (nul > 0 OR d <> n OR lo <> 0 OR hi <> n - 1)`],
  ['part session_id = its message session (parts are found through it)', `SELECT p.id AS what FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = @id AND p.session_id <> m.session_id`],
  ['part data a JSON object with a type', `SELECT p.id AS what FROM part p WHERE p.session_id = @id AND NOT (json_valid(p.data) AND json_type(p.data) = 'object' AND json_type(p.data,'$.type') = 'text')`],
  ['user text parts not ignored', `SELECT p.id AS what FROM part p JOIN message m ON m.id = p.message_id WHERE p.session_id = @id AND json_extract(m.data,'$.role') = 'user' AND json_extract(p.data,'$.type') = 'text' AND json_extract(p.data,'$.ignored') = 1`],
  ['no empty user message', `SELECT m.id AS what FROM message m WHERE m.session_id = @id AND json_extract(m.data,'$.role') = 'user' AND NOT EXISTS (SELECT 1 FROM part p WHERE p.message_id = m.id AND json_extract(p.data,'$.type') IN ('text','file','agent'))`],
  ['assistant has text/reasoning/tool or non-zero tokens', `SELECT m.id AS what FROM message m WHERE m.session_id = @id AND json_extract(m.data,'$.role') = 'assistant' AND NOT EXISTS (SELECT 1 FROM part p WHERE p.message_id = m.id AND json_extract(p.data,'$.type') IN ${TEXTUAL}) AND coalesce(json_extract(m.data,'$.tokens.input'),0) + coalesce(json_extract(m.data,'$.tokens.output'),0) = 0`],
  ['tool parts terminal (completed|error)', `SELECT p.id AS what FROM part p WHERE p.session_id = @id AND json_extract(p.data,'$.type') = 'tool' AND coalesce(json_extract(p.data,'$.state.status'),'') NOT IN ('completed','error')`],
  ['completed tool: input, output string, title, metadata, time', `SELECT p.id AS what FROM part p WHERE p.session_id = @id AND json_extract(p.data,'$.type') = 'tool' AND json_extract(p.data,'$.state.status') = 'completed' AND (json_type(p.data,'$.state.input') IS NOT 'object' OR json_type(p.data,'$.state.output') IS NOT 'text' OR json_type(p.data,'$.state.title') IS NOT 'text' OR json_type(p.data,'$.state.metadata') IS NOT 'object' OR json_type(p.data,'$.state.time.start') IS NOT 'integer' OR json_type(p.data,'$.state.time.end') IS NOT 'integer')`],
  ['error tool: input, error string', `SELECT p.id AS what FROM part p WHERE p.session_id = @id AND json_extract(p.data,'$.type') = 'tool' AND json_extract(p.data,'$.state.status') = 'error' AND (json_type(p.data,'$.state.input') IS NOT 'object' OR json_type(p.data,'$.state.error') IS NOT 'text')`],
  ['tool callID and name set', `SELECT p.id AS what FROM part p WHERE p.session_id = @id AND json_extract(p.data,'$.type') = 'tool' AND (coalesce(json_extract(p.data,'$.callID'),'') = '' OR coalesce(json_extract(p.data,'$.tool'),'') = '')`],
  ['callID unique within its message', `SELECT p.message_id || ' ' || json_extract(p.data,'$.callID') AS what FROM part p WHERE p.session_id = @id AND json_extract(p.data,'$.type') = 'tool' GROUP BY p.message_id, json_extract(p.data,'$.callID') HAVING count(*) > 1`],
  ['part sequence 0..n-1 per message', `SELECT message_id AS what FROM part WHERE session_id = @id GROUP BY message_id HAVING sum(sequence IS NULL) > 0 OR count(DISTINCT sequence) <> count(*) OR min(sequence) <> 0 OR max(sequence) <> count(*) - 1`],
  ['session_entry data valid JSON', `SELECT id AS what FROM session_entry WHERE session_id = @id AND NOT json_valid(data)`],
  ['model selection entry as ZCode writes it', `SELECT 'model selection' AS what WHERE NOT EXISTS (SELECT 1 FROM session_entry WHERE session_id = @id AND id = @id || ':runtime-model-selection' AND type = 'runtime/model_selection' AND json_type(data,'$.modelSelection.providerId') = 'text' AND json_type(data,'$.modelSelection.modelId') = 'text')`],
]

/** Every violation of the resume requirements by session `id` in the database at `path` (empty = resumable). */
export function resumeViolations(path: string, id: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const out: string[] = []
    for (const [name, sql] of REQUIREMENTS) for (const r of db.prepare(sql).all({ id }) as Array<{ what: unknown }>) out.push(`${name}: ${String(r.what)}`)
    return out
  } finally {
    db.close()
  }
}
