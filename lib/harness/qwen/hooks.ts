/**
 * Qwen Code's hooks: Claude Code's events (`Stop`, `SessionEnd`) in `<root>/settings.json`, the
 * payload on stdin with `transcript_path`. The timeout is written as 30000, long enough whether
 * Qwen reads it as milliseconds (Gemini CLI's unit) or seconds (Claude Code's).
 */
import { join } from 'node:path'
import type { HookSpec } from '../types.js'
import { sessionOfPayload, settingsHooks } from '../family/claude-hooks.js'
import { store } from './paths.js'

const settings = settingsHooks(['Stop', 'SessionEnd'], 30_000)

export const hooks: HookSpec = {
  file: (ctx) => join(store.root(ctx), 'settings.json'),
  events: 'Stop and SessionEnd',
  add: settings.add,
  remove: settings.remove,
  has: settings.has,
  session: ({ stdin }) => sessionOfPayload('qwen', stdin),
  stdin: true,
  budgetMs: 20_000,
}
