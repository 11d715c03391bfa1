/**
 * Claude Code: JSONL transcripts under `~/.claude/projects/<slug>/<uuid>.jsonl`,
 * sub-agents and spilled tool outputs beside them. See docs/formats/claude-code.md.
 */
import { resolve } from 'node:path'
import { defineHarness, type Flags } from '../types.js'
import { discover, resolveRef } from './discover.js'
import { readSession } from './source.js'
import { claudeSink } from './sink.js'
import { tools } from './tools.js'

import type { StoreContext } from '../../context.js'

const root = (ctx: StoreContext): string => ctx.roots['claude-code'] ?? (ctx.env.CLAUDE_CONFIG_DIR || resolve(ctx.home, '.claude'))

/** Declared apart from the call so source.ts and sink.ts can type their options from them. */
export const readFlags = {
  inlineSpilled: { type: 'boolean', describe: 'replace <persisted-output> previews with the full text from tool-results/*.txt', default: false, aliases: ['inline-spilled'] },
} satisfies Flags

export const writeFlags = {
  thinking: { type: 'string', choices: ['text', 'drop'] as const, describe: 'reasoning without a genuine Anthropic signature is written as "text" or "drop"ped', default: 'text', aliases: ['thinking'] },
} satisfies Flags

export const claudeCode = defineHarness({
  id: 'claude-code',
  name: 'Claude Code',
  kind: 'store',
  store: {
    envVars: ['CLAUDE_CONFIG_DIR'],
    flag: { name: 'claude-dir', describe: 'Claude Code config dir (default $CLAUDE_CONFIG_DIR, else ~/.claude)' },
    root,
  },
  resumeHint: 'claude --resume <id>',
  readFlags,
  writeFlags,
  discover: (ctx) => discover(ctx, root(ctx)),
  resolve: (ctx, ref) => resolveRef(ctx, root(ctx), ref),
  read: (ctx, info, opts) => readSession(ctx, info, opts),
  sink: (ctx, opts) => claudeSink(ctx, root(ctx), opts),
  tools,
})
