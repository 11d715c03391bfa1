/**
 * `ferry mcp`: a Model Context Protocol server over stdio (the official
 * SDK's low-level Server and stdio transport) serving the archive and the
 * agents' own stores to an agent. Every tool result is structured (checked
 * against the tool's output schema by the SDK's client) with a readable text
 * part; a failed call is a tool error carrying ferry's code, and the server
 * goes on serving. stdout is the protocol's: nothing else may write there.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { StoreContext } from '../context.js'
import { asFerryError, FerryError, UsageError } from '../errors.js'
import { VERSION } from '../version.js'
import { continueSession, commandLine } from '../app/continue.js'
import { CONTINUE_TOOL, LIMITS, TOOLS } from './tools.js'
import { listSessions, readSession, searchSessions, type Hit, type Page, type Served, type SessionRow } from './sessions.js'

export interface ServeOptions {
  /** Redact what the tools return (default true), as `ferry render` does. */
  redact?: boolean
  /** Offer continue_session, which writes into another agent's store. */
  allowContinue?: boolean
}

type Args = Record<string, unknown>
type Schema = { type?: string | readonly string[]; properties?: Record<string, Schema>; required?: readonly string[]; enum?: readonly unknown[]; minimum?: number; maximum?: number; items?: Schema }

/** The arguments checked against the tool's input schema: a wrong call is a usage error naming the argument, never a crash. */
function checkArgs(tool: string, schema: Schema, args: Args): void {
  for (const k of schema.required ?? []) if (args[k] === undefined) throw new UsageError(`${tool}: missing argument "${k}"`)
  for (const [k, v] of Object.entries(args)) {
    const p = schema.properties?.[k]
    if (!p) throw new UsageError(`${tool}: unknown argument "${k}" (known: ${Object.keys(schema.properties ?? {}).join(', ')})`)
    const type = p.type
    const ok =
      type === 'string' ? typeof v === 'string'
      : type === 'boolean' ? typeof v === 'boolean'
      : type === 'integer' ? Number.isInteger(v)
      : type === 'array' ? Array.isArray(v) && v.every((x) => typeof x === 'string')
      : true
    if (!ok) throw new UsageError(`${tool}: "${k}" must be ${type === 'array' ? 'an array of strings' : `a${type === 'integer' ? 'n' : ''} ${String(type)}`}`)
    if (p.enum && !p.enum.includes(v)) throw new UsageError(`${tool}: "${k}" must be one of ${p.enum.join(', ')}`)
    if (typeof v === 'number' && ((p.minimum !== undefined && v < p.minimum) || (p.maximum !== undefined && v > p.maximum)))
      throw new UsageError(`${tool}: "${k}" must be between ${p.minimum ?? '-∞'} and ${p.maximum ?? '∞'}`)
  }
}

function sessionsText(rows: SessionRow[], warnings: string[]): string {
  if (!rows.length) return `No sessions.${warnings.length ? `\n${warnings.join('\n')}` : ''}`
  const line = (r: SessionRow) =>
    `${r.ref}  ${(r.updated_at ?? r.created_at ?? '-').slice(0, 16).replace('T', ' ')}  ${r.cwd ?? '-'}  ${(r.title ?? '').replace(/\s+/g, ' ').slice(0, 80)}${r.gone_from_source ? '  [gone from source]' : ''}`
  return [...rows.map(line), ...warnings.map((w) => `warning: ${w}`)].join('\n')
}

function hitsText(hits: Hit[]): string {
  if (!hits.length) return 'No matches.'
  return hits
    .map((h) => `${h.ref}  ${(h.time ?? '-').slice(0, 16).replace('T', ' ')}  ${(h.title ?? '').replace(/\s+/g, ' ').slice(0, 80)}\n  ${h.role ?? h.kind}${h.tools ? ` [${h.tools}]` : ''}: ${h.snippet}`)
    .join('\n')
}

function pageText(p: Page): string {
  const tail = p.next_offset === null ? '' : `\n\n[page ends at character ${p.next_offset}; call read_session with offset ${p.next_offset} for more]`
  return p.text + tail
}

function result(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured }
}

/** A failure as the model sees it: ferry's code first (`usage`, `no-session`, `db-error`…), then the message. */
function toolError(err: unknown): CallToolResult {
  const fe = err instanceof FerryError ? err : asFerryError(err)
  const where = fe.position?.file ? ` (${fe.position.file}${fe.position.line ? `:${fe.position.line}` : ''})` : ''
  return { content: [{ type: 'text', text: `ferry:${fe.code}: ${fe.message}${where}` }], isError: true }
}

/** The server, not yet connected (an embedding can give it any transport), and what waits for its calls in flight. */
export function createServer(ctx: StoreContext, opts: ServeOptions = {}): { server: Server; idle: () => Promise<void> } {
  const served: Served = { ctx, redact: opts.redact !== false }
  // Calls in flight, so a client that sends its last request and closes stdin still gets the answer.
  let busy = 0
  let wake: (() => void) | null = null
  const tracked = async <R>(fn: () => Promise<R>): Promise<R> => {
    busy++
    try {
      return await fn()
    } finally {
      if (--busy === 0) wake?.()
    }
  }
  const idle = () => (busy === 0 ? Promise.resolve() : new Promise<void>((r) => (wake = r)))
  const tools = [...TOOLS, ...(opts.allowContinue ? [CONTINUE_TOOL] : [])]
  const server = new Server(
    { name: 'ferry-mcp', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'ferry serves the coding-agent sessions of this machine (every agent, archived and live). search_sessions finds past work by words; read_session reads a hit by its ref (session#message), in pages; list_sessions lists sessions newest first.',
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => ({ ...t })) as never }))
  server.setRequestHandler(CallToolRequestSchema, (req, extra): Promise<CallToolResult> => tracked(async () => {
    const { name } = req.params
    const args = (req.params.arguments ?? {}) as Args
    try {
      const tool = tools.find((t) => t.name === name)
      if (!tool) throw new UsageError(`unknown tool "${name}" (known: ${tools.map((t) => t.name).join(', ')})`)
      checkArgs(name, tool.inputSchema as Schema, args)
      switch (name) {
        case 'list_sessions': {
          const r = await listSessions(served, args)
          return result(r as unknown as Record<string, unknown>, sessionsText(r.sessions, r.warnings))
        }
        case 'search_sessions': {
          // One SQLite statement does the work, so progress is its start and its end, for clients that show a spinner.
          const token = req.params._meta?.progressToken
          const progress = async (n: number, message: string) => {
            if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, total: 1, message } })
          }
          await progress(0, 'searching the archive')
          const hits = searchSessions(served, args as never)
          await progress(1, `${hits.length} hit${hits.length === 1 ? '' : 's'}`)
          return result({ hits }, hitsText(hits))
        }
        case 'read_session': {
          const page = await readSession(served, args as never)
          return result(page as unknown as Record<string, unknown>, pageText(page))
        }
        case 'continue_session': {
          const r = await continueSession(ctx, String(args.ref), String(args.to), typeof args.cwd === 'string' ? { cwd: args.cwd } : {})
          const command = commandLine(r.command)
          return result({ harness: r.written.harness, id: r.written.id, path: r.written.path, command, reused: r.reused }, `${r.reused ? 'Reused' : 'Wrote'} ${r.written.harness}:${r.written.id} (${r.written.path}); resume with: ${command}`)
        }
      }
      throw new UsageError(`unknown tool "${name}"`)
    } catch (err) {
      return toolError(err)
    }
  }))
  // The newest sessions as resources, for clients that offer them to attach; each reads as its first page.
  server.setRequestHandler(ListResourcesRequestSchema, () => tracked(async () => {
    const { sessions } = await listSessions(served, { limit: 20 })
    return {
      resources: sessions.map((s) => ({
        uri: `ferry://session/${encodeURIComponent(s.ref)}`,
        name: s.ref,
        title: s.title ?? s.ref,
        mimeType: 'text/markdown',
        ...(s.updated_at ? { annotations: { lastModified: s.updated_at } } : {}),
      })),
    }
  }))
  server.setRequestHandler(ReadResourceRequestSchema, (req) => tracked(async () => {
    const m = /^ferry:\/\/session\/(.+)$/.exec(req.params.uri)
    if (!m) throw new UsageError(`not a ferry resource: ${req.params.uri}`)
    const page = await readSession(served, { ref: decodeURIComponent(m[1]!), max_chars: LIMITS.maxPage })
    return { contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text: pageText(page) }] }
  }))
  return { server, idle }
}

/** Serves on stdin/stdout until the client closes them. */
export async function serveStdio(ctx: StoreContext, opts: ServeOptions = {}): Promise<void> {
  const { server, idle } = createServer(ctx, opts)
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
  })
  await server.connect(transport)
  await closed
  // The answers to calls already made are still written (a client may close stdin right after its last request).
  await idle()
  await new Promise((r) => setImmediate(r))
  await server.close().catch(() => {})
}
