/**
 * Gemini CLI's hooks: `AfterAgent` (after every turn) and `SessionEnd` in `<root>/settings.json`,
 * the shape Claude Code uses (hooks enabled by default in 0.61); each passes
 * `{session_id, transcript_path, cwd, hook_event_name, …}` on stdin; the timeout is in milliseconds.
 * https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md
 */
import { join } from 'node:path'
import type { HookSpec } from '../types.js'
import { sessionOfPayload, settingsHooks } from '../family/claude-hooks.js'
import { store } from './paths.js'

const settings = settingsHooks(['AfterAgent', 'SessionEnd'], 30_000)

export const hooks: HookSpec = {
  file: (ctx) => join(store.root(ctx), 'settings.json'),
  events: 'AfterAgent and SessionEnd',
  add: settings.add,
  remove: settings.remove,
  has: settings.has,
  session: ({ stdin }) => sessionOfPayload('gemini', stdin),
  stdin: true,
  budgetMs: 20_000,
}
