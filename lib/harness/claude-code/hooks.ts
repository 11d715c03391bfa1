/**
 * Claude Code's hooks: `Stop` (after every turn) and `SessionEnd` in `<root>/settings.json`; each
 * passes `{session_id, transcript_path, cwd, hook_event_name}` on stdin and waits for the command
 * up to its `timeout`, in seconds. https://docs.anthropic.com/en/docs/claude-code/hooks
 */
import { join } from 'node:path'
import { settingsHookSpec } from '../family/claude-hooks.js'
import { HARNESS, store } from './paths.js'

export const hooks = settingsHookSpec(HARNESS, (ctx) => join(store.root(ctx), 'settings.json'), ['Stop', 'SessionEnd'], 30)
