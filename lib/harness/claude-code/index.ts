import { resolve } from 'node:path'
import type { Harness } from '../types.js'

export const claudeCode: Harness = {
  id: 'claude-code',
  name: 'Claude Code',
  envVars: ['CLAUDE_CONFIG_DIR'],
  rootFlag: { name: 'claude-dir', describe: 'Claude Code config dir (default $CLAUDE_CONFIG_DIR, else ~/.claude)' },
  root: (ctx) => ctx.roots['claude-code'] ?? ctx.env.CLAUDE_CONFIG_DIR ?? resolve(ctx.home, '.claude'),
}
