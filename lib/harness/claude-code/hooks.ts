/**
 * Claude Code's hooks: `Stop` (after every turn) and `SessionEnd` in `<root>/settings.json`; each
 * passes `{session_id, transcript_path, cwd, hook_event_name}` on stdin and waits for the command
 * up to its `timeout` (seconds). https://docs.anthropic.com/en/docs/claude-code/hooks
 */
import { join } from 'node:path'
import type { HookSpec } from '../types.js'
import { sessionOfPayload, settingsHooks } from '../family/claude-hooks.js'
import { HARNESS, store } from './paths.js'

// Claude Code's hook timeout is in seconds.
const settings = settingsHooks(['Stop', 'SessionEnd'], 30)

export const hooks: HookSpec = {
  file: (ctx) => join(store.root(ctx), 'settings.json'),
  events: 'Stop and SessionEnd',
  add: settings.add,
  remove: settings.remove,
  has: settings.has,
  session: ({ stdin }) => sessionOfPayload(HARNESS, stdin),
  stdin: true,
  budgetMs: 20_000,
}
