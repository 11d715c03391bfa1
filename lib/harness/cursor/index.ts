/**
 * Cursor (CLI agent and editor): three stores read as one list of sessions
 * (agent transcripts, CLI chat stores, the editor's state.vscdb); written as
 * transcripts and CLI chat stores. See docs/formats/cursor.md.
 */
import { defineHarness } from '../types.js'
import { discover, resolveSession } from './discover.js'
import { dotCursor } from './paths.js'
import { cursorSink } from './sink.js'
import { readSession } from './source.js'
import { tools } from './tools.js'

export const cursor = defineHarness({
  id: 'cursor',
  name: 'Cursor',
  kind: 'store',
  store: {
    envVars: [],
    flag: { name: 'cursor-dir', describe: 'Cursor store to read (sniffed: a ~/.cursor dir, a ~/.config/cursor dir, or the editor User dir); written into when it is a .cursor dir (default ~/.cursor, plus ~/.config/cursor and the editor User dir)' },
    root: (ctx) => dotCursor(ctx),
  },
  resumeHint: 'agent --resume=<id>',
  // Cursor's installer links ~/.local/bin/agent into ~/.local/share/cursor-agent/versions/<v>/; another `agent` is not it.
  isOwnBinary: (realPath) => /[\\/]cursor-agent[\\/]|[\\/]cursor-agent$/.test(realPath),
  writeFlags: {
    store: { type: 'string', choices: ['auto', 'transcript', 'chat', 'both', 'ide'] as const, default: 'auto', describe: 'which Cursor stores to write: transcript, chat (CLI store.db), both; auto = a Cursor transcript back as a transcript, anything else both; ide is refused (ferry never writes state.vscdb)' },
  },
  discover,
  resolve: resolveSession,
  read: readSession,
  sink: (ctx, opts) => cursorSink(ctx, opts),
  tools,
})
