/** Builds small synthetic record streams for transform tests. */
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Transform } from 'node:stream'
import type { Block, FerryRecord, MessageRec } from '../../lib/model.js'

export const SID = 'codex:019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b'

export function session(extra: Record<string, unknown> = {}): FerryRecord {
  return { kind: 'session', ferry: '1.0', sid: SID, id: `${SID}:session`, source: { harness: 'codex', locator: {} }, native_id: SID.slice(6), cwd: '/home/dev/demo-app', title: 'Why does npm test fail?', ...extra } as FerryRecord
}

export function msg(n: number, role: 'user' | 'assistant', blocks: Block[], extra: Partial<MessageRec> = {}): MessageRec {
  return { kind: 'message', sid: SID, id: `${SID}:l${n}`, role, ts: null, blocks, native: { format: 'codex/jsonl@0.171', line: n, raw: `{"line":${n}}` }, ...extra }
}

export function end(): FerryRecord {
  return { kind: 'end', sid: SID, id: `${SID}:end` } as FerryRecord
}

export async function run(t: Transform, recs: FerryRecord[]): Promise<FerryRecord[]> {
  const out: FerryRecord[] = []
  await pipeline(Readable.from(recs, { objectMode: true }), t, new Writable({ objectMode: true, write: (r, _e, cb) => (out.push(r), cb()) }))
  return out
}

/** Every tool_result answers a tool_use seen before it, and every tool_use is answered. */
export function pairsIntact(recs: FerryRecord[]): boolean {
  const uses = new Set<string>()
  const answered = new Set<string>()
  for (const r of recs) {
    if (r.kind !== 'message') continue
    for (const b of r.blocks) {
      if (b.type === 'tool_use') uses.add(b.id)
      if (b.type === 'tool_result') {
        if (!uses.has(b.tool_use_id)) return false
        answered.add(b.tool_use_id)
      }
    }
  }
  return [...uses].every((u) => answered.has(u))
}
