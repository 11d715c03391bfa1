/**
 * A HOME for the search and MCP tests: the sample stores (one session in
 * every agent), plus sessions written into Claude Code's store by ferry's
 * own sink (as the agent lays them out, under ids it makes) from a stream made here: one with a
 * hyphenated marker, punctuated words and a planted credential (random, so
 * never a real one), and a huge one. Then `ferry archive`, as a user would.
 */
import { randomBytes } from 'node:crypto'
import { ferry, sampleHome, type T } from '../kit.js'

export const MARKER = 'FERRY-MCP-MARKER'
export const SECRET_TITLE = 'Deploy key rotation'
export const HUGE_TITLE = 'A very long session'
export const HUGE_MESSAGES = 400

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A GitHub token's shape with random letters: what the redactor must catch. */
export function fakeToken(): string {
  return `ghp_${[...randomBytes(36)].map((b) => B62[b % 62]).join('')}`
}

function session(nativeId: string, title: string, texts: Array<['user' | 'assistant', string]>, day: string): string {
  const sid = `ferry:${nativeId}`
  const recs: object[] = [
    { kind: 'stream', ferry: '1.0', producer: 'ferry-test' },
    { kind: 'session', ferry: '1.0', id: `${sid}:session`, sid, source: { harness: 'ferry', locator: {} }, native_id: nativeId, cwd: '/home/dev/mcp-proj', title, created_at: `${day}T10:00:00.000Z`, updated_at: `${day}T10:30:00.000Z` },
  ]
  texts.forEach(([role, text], i) => {
    const ts = new Date(Date.parse(`${day}T10:00:00.000Z`) + (i + 1) * 1000).toISOString()
    recs.push({ kind: 'message', sid, id: `${sid}:m${i + 1}`, ts, role, blocks: [{ type: 'text', text }], ...(i ? { parent: `${sid}:m${i}` } : {}) })
  })
  recs.push({ kind: 'end', sid, id: `${sid}:end`, complete: true })
  return recs.map((r) => JSON.stringify(r)).join('\n') + '\n'
}

export interface McpHome {
  home: string
  token: string
}

export async function mcpHome(t: T): Promise<McpHome> {
  const home = sampleHome(t)
  const token = fakeToken()
  const secret = session(
    '5e0c0000-0000-4000-8000-00000000a001',
    SECRET_TITLE,
    [
      ['user', `The deploy failed with ${MARKER} in the log; my token is ${token}, please check probe.txt and src/a.ts`],
      ['assistant', 'I ran the script with --force and it printed done.'],
      ['user', 'Thanks, that fixed it.'],
      ['assistant', 'Glad it works now.'],
    ],
    '2026-11-30',
  )
  const big: Array<['user' | 'assistant', string]> = []
  for (let i = 1; i <= HUGE_MESSAGES; i++) big.push([i % 2 ? 'user' : 'assistant', `step ${i}: ${'lorem ipsum dolor sit amet '.repeat(40)}hugeword${i}`])
  const huge = session('5e0c0000-0000-4000-8000-00000000b002', HUGE_TITLE, big, '2026-11-29')
  for (const stream of [secret, huge]) {
    const w = await ferry(['write', '--to', 'claude-code', '--home', home], { input: stream })
    if (w.code !== 0) throw new Error(`ferry write: ${w.stderr}`)
  }
  const a = await ferry(['--home', home, 'archive'])
  if (a.code !== 0) throw new Error(`ferry archive: ${a.stderr}`)
  return { home, token }
}
