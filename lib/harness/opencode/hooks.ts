/**
 * OpenCode has no hook command, but loads every `plugin/*.{ts,js}` of its config dir
 * (`$XDG_CONFIG_HOME/opencode`) and tells plugins each bus event; `session.idle` carries the
 * session's id once a turn is done. ferry's hook is a plugin file of its own that starts
 * `ferry hooks run opencode ID` detached (OpenCode does not wait for plugin handlers).
 * https://github.com/anomalyco/opencode/blob/dev/packages/opencode/src/config/config.ts (PLUGIN_GLOB)
 */
import { join } from 'node:path'
import { xdgDir } from '../../context.js'
import type { HookSpec } from '../types.js'

const MARK = '// ferry hooks: archives each OpenCode session when it goes idle'

export const hooks: HookSpec = {
  file: (ctx) => join(xdgDir(ctx, 'config'), 'opencode', 'plugin', 'ferry-archive.js'),
  events: 'session.idle (a plugin file of its own)',
  add: (_text, command) =>
    [
      MARK,
      '// (written by `ferry hooks install`; `ferry hooks uninstall` removes this file)',
      'import { spawn } from "node:child_process"',
      `const COMMAND = ${JSON.stringify(command)}`,
      'export const FerryArchive = async () => ({',
      '  event: async ({ event }) => {',
      '    const id = event?.type === "session.idle" ? event.properties?.sessionID : undefined',
      '    if (typeof id !== "string" || !id) return',
      '    try {',
      '      spawn(COMMAND[0], [...COMMAND.slice(1), id], { detached: true, stdio: "ignore" }).unref()',
      '    } catch {}',
      '  },',
      '})',
      '',
    ].join('\n'),
  remove: (text) => (text.startsWith(MARK) ? '' : text),
  has: (text) => text !== null && text.startsWith(MARK),
  session: ({ args }) => (args[args.length - 1] ? `opencode:${args[args.length - 1]}` : null),
  stdin: false,
  budgetMs: 60_000,
}
