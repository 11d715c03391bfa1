import { resolve } from 'node:path'
import type { CliFlag, Harness } from '../types.js'
import { discover, resolveRef } from './discover.js'
import { readSession } from './source.js'
import { claudeSink } from './sink.js'

export const readFlags: CliFlag[] = [
  { name: 'inline-spilled', type: 'boolean', describe: 'Claude Code: replace <persisted-output> previews with the full text from tool-results/*.txt', default: false },
]

export const writeFlags: CliFlag[] = [
  { name: 'thinking', type: 'string', describe: 'Claude Code: reasoning without a genuine Anthropic signature is written as "text" or "drop"ped', default: 'text' },
]

export const claudeCode: Harness = {
  id: 'claude-code',
  name: 'Claude Code',
  envVars: ['CLAUDE_CONFIG_DIR'],
  rootFlag: { name: 'claude-dir', describe: 'Claude Code config dir (default $CLAUDE_CONFIG_DIR, else ~/.claude)' },
  root: (ctx) => ctx.roots['claude-code'] ?? (ctx.env.CLAUDE_CONFIG_DIR || resolve(ctx.home, '.claude')),
  discover: (ctx) => discover(ctx, claudeCode.root(ctx)),
  resolve: (ctx, ref) => resolveRef(ctx, claudeCode.root(ctx), ref),
  readFlags,
  writeFlags,
  read: (ctx, info, opts) => readSession(ctx, info, opts),
  sink: (ctx, opts) => claudeSink(ctx, claudeCode.root(ctx), opts),
}

