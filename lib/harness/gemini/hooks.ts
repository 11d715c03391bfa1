/**
 * Gemini CLI's hooks: `AfterAgent` (after every turn) and `SessionEnd` in `<root>/settings.json`,
 * the shape Claude Code uses (enabled by default in 0.61); the payload on stdin carries
 * `transcript_path`; the timeout is in milliseconds.
 * https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md
 */
import { join } from 'node:path'
import { settingsHookSpec } from '../family/claude-hooks.js'
import { store } from './paths.js'

export const hooks = settingsHookSpec('gemini', (ctx) => join(store.root(ctx), 'settings.json'), ['AfterAgent', 'SessionEnd'], 30_000)
