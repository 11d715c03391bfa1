/**
 * The tools `ferry mcp` offers, as MCP describes them: a name, what it is
 * for (the model reads this to choose), a JSON Schema of the arguments and
 * one of the structured result. The schemas are the contract: the SDK's
 * client checks every result against its output schema.
 */
import { harnesses } from '../harness/registry.js'

// The agents and ids come from the registry, so a new harness shows up here by itself.
const agents = harnesses.filter((h) => h.kind === 'store' && !h.holdsCopies)
const AGENT_NAMES = agents.map((h) => h.name).join(', ')
const AGENT_IDS = agents.map((h) => h.id).join(', ')

const str = (description: string) => ({ type: 'string', description }) as const
const nullable = (type: string, description: string) => ({ type: [type, 'null'], description }) as const

export const LIMITS = {
  /** list_sessions and search_sessions: at most this many rows in one answer. */
  maxRows: 200,
  /** read_session: the largest page, in characters (a model's context is the scarce thing). */
  maxPage: 100_000,
  defaultPage: 20_000,
} as const

const sessionRow = {
  type: 'object',
  properties: {
    ref: str('What opens it: pass to read_session'),
    harness: str('The agent it came from'),
    id: str("The agent's own session id"),
    title: nullable('string', 'Title, when known'),
    cwd: nullable('string', 'Working directory'),
    created_at: nullable('string', 'ISO time'),
    updated_at: nullable('string', 'ISO time'),
    message_count: nullable('integer', 'Messages, where cheap to know'),
    archived: { type: 'boolean', description: "In ferry's archive" },
    gone_from_source: { type: 'boolean', description: "The agent's own store no longer has it (archive only)" },
  },
  required: ['ref', 'harness', 'id', 'title', 'cwd', 'created_at', 'updated_at', 'message_count', 'archived', 'gone_from_source'],
} as const

const filters = {
  harness: { type: 'array', items: { type: 'string' }, description: `Only these agents (harness ids: ${AGENT_IDS})` },
  cwd: str('Only sessions of this directory or below'),
  since: str('Only since: an ISO date or time, a span back from now (7d, 12h), or English (yesterday)'),
} as const

export const TOOLS = [
  {
    name: 'list_sessions',
    title: 'List sessions',
    description:
      `Lists coding-agent sessions (${AGENT_NAMES}) from ferry's archive and the agents' own stores, newest first. Each row has the ref that read_session takes.`,
    inputSchema: {
      type: 'object',
      properties: {
        ...filters,
        until: str('Only until: the same forms as since'),
        limit: { type: 'integer', minimum: 1, maximum: LIMITS.maxRows, default: 20, description: 'At most this many sessions' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { sessions: { type: 'array', items: sessionRow }, warnings: { type: 'array', items: { type: 'string' } } },
      required: ['sessions', 'warnings'],
    },
  },
  {
    name: 'search_sessions',
    title: 'Search sessions',
    description:
      "Full-text search over every archived session of every agent (messages, tool calls and outputs, titles). The query is plain words, each taken as written (probe.txt, FERRY-DONE, --force, src/a.ts), all of which must match; set fts for SQLite FTS5 syntax (OR, NOT, \"a phrase\", prefix*, title:word). Each hit carries the ref (session#message) that read_session opens.",
    inputSchema: {
      type: 'object',
      properties: {
        query: str('Words to find (all must match); FTS5 syntax when fts is true'),
        fts: { type: 'boolean', default: false, description: 'Take query as FTS5 syntax' },
        ...filters,
        role: { type: 'string', enum: ['user', 'assistant', 'system'], description: 'Only messages of this role' },
        tool: str('Only tool calls (and their results) of this tool, e.g. Bash'),
        limit: { type: 'integer', minimum: 1, maximum: LIMITS.maxRows, default: 20, description: 'At most this many hits' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        hits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              ref: str('session#message: pass to read_session to read around the hit'),
              session: str('The session key (harness:id)'),
              harness: str('The agent'),
              title: nullable('string', 'Session title'),
              time: nullable('string', 'ISO time of the hit'),
              record_id: str('Stable record id of the hit'),
              kind: str('message, or session (a title or cwd match)'),
              role: nullable('string', 'Role of the message'),
              tools: nullable('string', 'Tools called in it'),
              message: nullable('integer', 'Message number in the session, as read_session numbers them'),
              snippet: str('Excerpt; matches in **bold**'),
              gone_from_source: { type: 'boolean', description: "The agent's own store no longer has the session" },
            },
            required: ['ref', 'session', 'harness', 'title', 'time', 'record_id', 'kind', 'role', 'tools', 'message', 'snippet', 'gone_from_source'],
          },
        },
      },
      required: ['hits'],
    },
  },
  {
    name: 'read_session',
    title: 'Read a session',
    description:
      'Reads one session as a Markdown conversation, messages numbered #1, #2, …; credentials, home paths and e-mail addresses are redacted. A long session comes in pages: call again with offset = next_offset until next_offset is null.',
    inputSchema: {
      type: 'object',
      properties: {
        ref: str('A ref from list_sessions or search_sessions: harness:id (the whole session), harness:id#N (from message N on, as a search hit gives it), or harness:id#A-B (messages A to B)'),
        range: str('Only messages A-B (e.g. 5-12, 7, 20-); overrides a range in ref'),
        tools: { type: 'string', enum: ['brief', 'full', 'none'], default: 'brief', description: 'Tool calls and outputs: one line each, in full, or left out' },
        thinking: { type: 'boolean', default: false, description: 'Include the model’s thinking' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Character offset of the page (next_offset of the previous page)' },
        max_chars: { type: 'integer', minimum: 1000, maximum: LIMITS.maxPage, default: LIMITS.defaultPage, description: 'Page size in characters' },
      },
      required: ['ref'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        session: str('The session key (harness:id)'),
        from: { type: 'string', enum: ['archived', 'live'], description: "Read from ferry's archive (archived) or the agent's own store (live)" },
        range: nullable('string', 'The message range shown'),
        redacted: { type: 'boolean', description: 'Credentials, home paths and e-mail addresses replaced' },
        offset: { type: 'integer', description: 'Where this page starts' },
        next_offset: nullable('integer', 'Where the next page starts; null at the end'),
        text: str('The page'),
      },
      required: ['session', 'from', 'range', 'redacted', 'offset', 'next_offset', 'text'],
    },
  },
] as const

/** Only offered when the server was started with --allow-continue: it writes into another agent's store. */
export const CONTINUE_TOOL = {
  name: 'continue_session',
  title: 'Continue a session in another agent',
  description:
    `Writes a session into another agent's own store (${AGENT_NAMES}) and returns the command that resumes it there. It writes files: use it only when the user asks to continue a session elsewhere.`,
  inputSchema: {
    type: 'object',
    properties: {
      ref: str('The session (harness:id)'),
      to: str(`The agent to continue in (harness id: ${AGENT_IDS})`),
      cwd: str('Directory to resume in (default: the session’s own, when it exists)'),
    },
    required: ['ref', 'to'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      harness: str('The agent written to'),
      id: str('The new session id'),
      path: str('Where it was written'),
      command: str('The command line that resumes it'),
      reused: { type: 'boolean', description: 'An unchanged earlier copy was reused' },
    },
    required: ['harness', 'id', 'path', 'command', 'reused'],
  },
} as const
