/**
 * The one list of error and diagnostic codes. Every FerryError and every
 * diagnostic carries one of these, so scripts (`--json` errors) and library
 * users can switch on them; they are printed as `<source>:<code>` where the
 * source is the harness or layer that found the problem. The README's
 * "Error codes" table is this list; adding a code means adding it here
 * with its meaning, never typing a new string at a call site.
 */
export const CODES = {
  // The command line or the library call itself.
  usage: 'the command line (or library call) is wrong; exit 2',
  'no-session': 'no session matches the reference',
  ambiguous: 'a reference matches several sessions',
  'not-implemented': 'the harness cannot do this (yet)',
  'no-match': 'nothing matched the selection (no session, no search hit): exit 1 with nothing on stdout, as grep and rg',

  // Reading: one input unit is skipped, the rest is read.
  'line-too-long': 'a line is longer than the line cap (--max-line-bytes); it was skipped without being buffered',
  'bad-line': 'a line is not valid JSON, or not a record of the format; it was skipped',
  'torn-line': 'the last line of a file has no newline and does not parse: the file was cut short or is being written',
  'bad-record': 'a record parses but has the wrong shape; it was skipped',
  'bad-version': 'an interchange stream of a major version this ferry does not understand',
  'bad-document': 'a JSON document (Messages or export document) is invalid',
  'bad-zstd': 'compressed data is truncated or corrupt; everything before it was read',
  'bad-meta': 'a metadata file or header line (summary.json, meta.json, session_meta) is missing or invalid',
  'bad-config': 'a configuration file does not parse; its settings were not used',
  'bad-row': 'a database row could not be decoded; it was skipped',
  'db-error': 'a database could not be opened or queried',
  unreadable: 'a file or directory could not be read',
  'discover-failed': 'one session could not be listed; the others were',
  'id-mismatch': 'a session id in the data differs from the one its path gives',
  'dangling-parent': 'a record points at a parent that is not in the session',
  'missing-parent': 'a fork\'s parent session (the history it inherits) is not in the store; the fork\'s own records are read',
  'orphan-result': 'a tool result without its call',
  'unknown-role': 'a message role the format does not define',
  'empty-session': 'a session with no conversation in it',
  'side-file': 'a file beside a session (spilled output, asset) is missing, too big, or outside the session',
  'unsupported': 'a construct the harness reads past (kept as native where it can)',
  incomplete: 'the input ended before the session was complete',

  // Writing: one session is not written, the others are.
  exists: 'the target already holds this session and --force was not given',
  'unsafe-path': 'an id or path from the input would leave the store root',
  'invalid-input': 'the records cannot be written in this format',
  'write-failed': 'a session could not be written (I/O error); nothing was left under its final name',
  'import-failed': 'the agent\'s own import command failed',
  'not-written': 'one or more sessions of the stream were not written',
  'no-client': 'the agent\'s program is not on PATH (or another program has its name): the session is written, the message says what to run',

  // Counting (`stats`): the tokens are counted, the figure named is not.
  'unpriced-model': 'a model has neither a recorded cost nor a price (pinned table or --prices FILE); its tokens are counted, its cost is not',

  // Anything else.
  internal: 'an unexpected error inside ferry (a bug: please report it)',
} as const

export type Code = keyof typeof CODES

export function isCode(s: string): s is Code {
  return Object.prototype.hasOwnProperty.call(CODES, s)
}
