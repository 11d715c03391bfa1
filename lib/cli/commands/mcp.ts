/**
 * `ferry mcp`: the sessions of every agent, served to an agent over the
 * Model Context Protocol on stdio (lib/mcp/). The server module is loaded
 * from the compiled library beside the CLI bundle, so the MCP SDK is parsed
 * by `ferry mcp` only, not by every other command.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Argv } from 'yargs'
import { FerryError } from '../../errors.js'
import type { serveStdio as Serve } from '../../mcp/server.js'
import { contextFrom, type Args } from '../options.js'

export const command = 'mcp'
export const describe = 'Serve the archive and the agents\' stores to an agent over MCP (stdio): list, search and read sessions'

export function builder(y: Argv): Argv {
  return y
    .option('redact', { type: 'boolean', default: true, describe: 'Redact credentials, home paths and e-mail addresses in what the tools return, as render does (--no-redact turns it off)' })
    .option('allow-continue', { type: 'boolean', default: false, describe: "Offer the continue_session tool, which writes sessions into another agent's store" })
    .example('claude mcp add ferry -- ferry mcp', 'give Claude Code the history of every agent (README: the other agents)')
    .example('ferry mcp --db ~/ferry.db', 'serve another archive')
}

/** dist/lib/mcp/server.js, from the bundle (dist/ferry.mjs) or from the compiled module (dist/lib/cli/commands/mcp.js). */
function serverModule(): string {
  for (const rel of ['./lib/mcp/server.js', '../../mcp/server.js']) {
    const url = new URL(rel, import.meta.url)
    if (existsSync(fileURLToPath(url))) return url.href
  }
  throw new FerryError('the MCP server module (dist/lib/mcp/server.js) is missing: rebuild ferry (npm run build)', { code: 'internal' })
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  // A variable specifier: the bundler leaves it to run time.
  const spec = serverModule()
  const { serveStdio } = (await import(spec)) as { serveStdio: typeof Serve }
  await serveStdio(ctx, { redact: argv.redact !== false, allowContinue: argv.allowContinue === true || argv['allow-continue'] === true })
}
