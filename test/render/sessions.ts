/**
 * What the render tests run on: every fixture session of every harness in
 * fixtures/home (found through the library, never named here), and a
 * hostile interchange session with planted payloads, broken text and
 * secrets of every kind of the redaction corpus.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ROOT } from '../kit.js'

export const HOME = join(FIXTURES, 'home')

interface Lib {
  discover(opts: { ctx: unknown }): AsyncGenerator<{ harness: string; id: string; parent?: unknown }>
  open(ref: string, opts: { ctx: unknown; native?: boolean }): Promise<AsyncIterable<{ kind: string; sid: string; context?: boolean; blocks?: Array<{ type: string }> }>>
  context(opts: { home: string }): unknown
}

export interface FixtureSession {
  ref: string
  harness: string
  /** Messages per session key, in stream order (sub-agents included). */
  messages: Map<string, number>
  /** Of those, injected context that the views fold into a summary line unless --context (not tool results). */
  context: number
}

/** Every top-level session in fixtures/home, with its message counts read through the library. */
export async function fixtureSessions(): Promise<FixtureSession[]> {
  const lib = (await import(join(ROOT, 'dist/lib/index.js'))) as Lib
  const ctx = lib.context({ home: HOME })
  const out: FixtureSession[] = []
  for await (const s of lib.discover({ ctx })) {
    if (s.parent) continue
    const ref = `${s.harness}:${s.id}`
    const messages = new Map<string, number>()
    let context = 0
    for await (const r of await lib.open(ref, { ctx, native: false })) {
      if (r.kind === 'session') messages.set(r.sid, 0)
      if (r.kind === 'message') messages.set(r.sid, (messages.get(r.sid) ?? 0) + 1)
      if (r.kind === 'message' && r.context && !r.blocks?.every((b) => b.type === 'tool_result')) context++
    }
    out.push({ ref, harness: s.harness, messages, context })
  }
  return out
}

/** Payloads that set `window.__pwned` or add `#planted` if they ever run. */
export const PAYLOADS = {
  script: '<script>window.__pwned = "script"</script>',
  img: '<img src=x onerror="window.__pwned = \'img\'; document.body.appendChild(Object.assign(document.createElement(\'div\'), {id: \'planted\'}))">',
  jsLink: '[click me](javascript:window.__pwned="link") and <a href="javascript:window.__pwned=1">raw</a>',
  details: '</details></pre></article><script>window.__pwned = "details"</script><div id="planted">x</div>',
  comment: '--><script>window.__pwned = "comment"</script><!--',
  svg: '<svg onload="window.__pwned=\'svg\'"></svg>',
}

const SID = 'ferry:hostile-1'
const base = (id: string) => ({ sid: SID, id: `${SID}:${id}` })
/** A 1x1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** The hostile session as interchange lines; `secrets` are planted in text, tool input and output. */
export function hostileLines(secrets: string[] = []): string[] {
  const recs: unknown[] = [
    { kind: 'session', ferry: '1.0', ...base('session'), source: { harness: 'ferry', locator: {} }, native_id: 'hostile-1', title: `<script>window.__pwned="title"</script> hostile`, cwd: '/home/alice/secret-project', model: 'm<b>x</b>', created_at: '2026-11-01T10:00:00.000Z' },
    { kind: 'message', ...base('m1'), role: 'user', ts: '2026-11-01T10:00:01.000Z', blocks: [{ type: 'text', text: `${PAYLOADS.script} ${PAYLOADS.img} mail alice.smith@corp-mail.net, lone \ud800 surrogate, NUL \u0000 here ${secrets.join(' ')}` }] },
    { kind: 'message', ...base('m2'), role: 'assistant', ts: '2026-11-01T10:00:02.000Z', blocks: [{ type: 'thinking', text: `thinking ${PAYLOADS.svg}` }, { type: 'text', text: `# Heading\n\n${PAYLOADS.jsLink}\n\n![x](https://tracker.example.net/pixel.png)\n\n\`\`\`\nunclosed fence ${PAYLOADS.details}` }, { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: `echo ${PAYLOADS.comment} ${secrets.join(' ')}` } }] },
    { kind: 'message', ...base('m3'), role: 'user', ts: '2026-11-01T10:00:03.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'call_1', is_error: true, content: `\u001b[31mred\u001b[0m ${PAYLOADS.details} ${PAYLOADS.comment} \u001b]0;title\u0007 \`\`\`\`\` ${secrets.join('\n')}\n${'x'.repeat(300_000)}` }] },
    { kind: 'boundary', ...base('b1'), type: 'compaction', trigger: 'auto', pre_tokens: 12345, summary: `summary ${PAYLOADS.script}` },
    { kind: 'message', ...base('m4'), role: 'user', ts: '2026-11-01T10:00:04.000Z', context: true, context_kind: 'environment', blocks: [{ type: 'text', text: `<env>${PAYLOADS.details}</env>` }] },
    { kind: 'message', ...base('m5'), role: 'assistant', ts: '2026-11-01T10:00:05.000Z', blocks: [{ type: 'image', mime: 'image/png', data: PNG }, { type: 'image', mime: 'image/svg+xml', data: Buffer.from('<svg onload="window.__pwned=1"/>').toString('base64') }, { type: 'image', mime: 'image/png', data: 'A'.repeat(3_000_000) }, { type: 'text', text: 'done' }] },
    { kind: 'end', ...base('end'), complete: true },
  ]
  return recs.map((r) => JSON.stringify(r))
}

export function writeHostile(dir: string, secrets: string[] = []): string {
  const file = join(dir, 'hostile.jsonl')
  writeFileSync(file, hostileLines(secrets).join('\n') + '\n')
  return file
}
