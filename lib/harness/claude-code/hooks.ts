/**
 * Claude Code's hooks: `Stop` (after every turn) and `SessionEnd` in `<root>/settings.json`; each
 * passes `{session_id, transcript_path, cwd, hook_event_name}` on stdin and waits for the command
 * up to its `timeout` (seconds). https://docs.anthropic.com/en/docs/claude-code/hooks
 */
import { join } from 'node:path'
import type { HookSpec } from '../types.js'
import { payloadObject, settingsHooks } from '../family/claude-hooks.js'
import { HARNESS, store } from './paths.js'

const settings = settingsHooks(['Stop', 'SessionEnd'], 30)

export const hooks: HookSpec = {
  file: (ctx) => join(store.root(ctx), 'settings.json'),
  events: 'Stop and SessionEnd',
  add: settings.add,
  remove: settings.remove,
  has: settings.has,
  session({ stdin }) {
    const p = payloadObject(stdin)
    if (typeof p?.transcript_path === 'string' && p.transcript_path) return p.transcript_path
    return typeof p?.session_id === 'string' && p.session_id ? `${HARNESS}:${p.session_id}` : null
  },
  stdin: true,
  budgetMs: 20_000,
}
