/**
 * Qwen Code's hooks: Claude Code's events (`Stop`, `SessionEnd`) in `<root>/settings.json`, the
 * payload on stdin with `transcript_path`. The timeout is written as 30000, long enough whether Qwen
 * reads it as milliseconds (Gemini CLI's unit) or seconds (Claude Code's).
 */
import { join } from 'node:path'
import { settingsHookSpec } from '../family/claude-hooks.js'
import { store } from './paths.js'

export const hooks = settingsHookSpec('qwen', (ctx) => join(store.root(ctx), 'settings.json'), ['Stop', 'SessionEnd'], 30_000)
