import t from 'tap'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { ferry, jsonl, tempDir } from '../kit.js'

const A = 'ferry:sess-a'
const B = 'ferry:sess-b'

function session(sid: string, title: string, n: number): string[] {
  const lines = [
    JSON.stringify({ kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: sid.split(':')[1], title, cwd: '/home/dev/demo-app' }),
  ]
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ kind: 'message', sid, id: `${sid}:m${i}`, role: i % 2 ? 'assistant' : 'user', ts: `2026-11-02T09:15:0${i}.000Z`, blocks: [{ type: 'text', text: `${title} message ${i} ✓ ünïcode` }] }))
  }
  lines.push(JSON.stringify({ kind: 'future-kind', sid, id: `${sid}:x`, payload: { keep: true } }))
  lines.push(JSON.stringify({ kind: 'end', sid, id: `${sid}:end`, complete: true }))
  return lines
}

const records = (out: string) => jsonl(out).filter((r) => r.kind !== 'stream')

t.test('cat of a multi-session stream keeps every record, unknown kinds included', async (t) => {
  const input = [...session(A, 'first', 3), ...session(B, 'second', 2)].join('\n') + '\n'
  const r = await ferry(['cat', '-'], { input })
  t.equal(r.code, 0, r.stderr)
  const recs = records(r.stdout)
  t.equal(recs.length, 5 + 6)
  t.same(recs.map((x) => x.kind).filter((k) => k === 'session').length, 2)
  t.same(recs, input.trim().split('\n').map((l) => JSON.parse(l)))
  t.equal(jsonl(r.stdout)[0].kind, 'stream', 'a stream preamble opens the output')
})

t.test('cat → write --to ferry --out DIR → cat is a fixpoint, one file per session', async (t) => {
  const dir = tempDir(t)
  const input = [...session(A, 'first', 3), ...session(B, 'second', 2)].join('\n') + '\n'
  const first = await ferry(['cat', '-'], { input })
  const w = await ferry(['write', '--to', 'ferry', '--out', dir, '--json'], { input: first.stdout })
  t.equal(w.code, 0, w.stderr)
  const written = jsonl(w.stdout)
  t.equal(written.length, 2)
  t.same(written.map((x) => x.id).sort(), ['sess-a', 'sess-b'])
  for (const x of written) t.ok(x.path.startsWith(dir), 'path reported')
  t.same(readdirSync(dir).sort(), ['ferry-sess-a.ferry.jsonl', 'ferry-sess-b.ferry.jsonl'])
  const again = await ferry(['cat', join(dir, 'ferry-sess-a.ferry.jsonl'), join(dir, 'ferry-sess-b.ferry.jsonl')])
  t.equal(again.code, 0, again.stderr)
  t.same(records(again.stdout), records(first.stdout))
})

t.test('an interchange file compressed with zstd is recognised by its content and read whole', async (t) => {
  const dir = tempDir(t)
  const text = [...session(A, 'first', 3), ...session(B, 'second', 2)].join('\n') + '\n'
  const plain = join(dir, 'stream.jsonl')
  writeFileSync(plain, text)
  // Both names: the usual `.jsonl.zst` and a bare `.zst` (recognised by the zstd magic and the decompressed head).
  for (const name of ['stream.jsonl.zst', 'stream.zst']) {
    execFileSync('zstd', ['-q', '-f', plain, '-o', join(dir, name)])
    const r = await ferry(['cat', join(dir, name)])
    t.equal(r.code, 0, `${name}: ${r.stderr}`)
    t.same(records(r.stdout), text.trim().split('\n').map((l) => JSON.parse(l)), `${name}: every record of both sessions`)
  }
  const out = tempDir(t)
  const w = await ferry(['convert', join(dir, 'stream.jsonl.zst'), '--to', 'claude-code', '--out', out, '--json'])
  t.equal(w.code, 0, w.stderr)
  t.equal(jsonl(w.stdout).length, 2, 'converted: one session file each')
})

t.test('existing sessions are not overwritten without --force', async (t) => {
  const dir = tempDir(t)
  const input = session(A, 'first', 1).join('\n') + '\n'
  t.equal((await ferry(['write', '--to', 'ferry', '--out', dir], { input })).code, 0)
  const again = await ferry(['write', '--to', 'ferry', '--out', dir], { input: session(A, 'changed', 1).join('\n') })
  t.equal(again.code, 1)
  t.match(again.stderr, /already exists/)
  t.match(readFileSync(join(dir, 'ferry-sess-a.ferry.jsonl'), 'utf8'), /first message 0/)
  const forced = await ferry(['write', '--to', 'ferry', '--out', dir, '--force'], { input: session(A, 'changed', 1).join('\n') })
  t.equal(forced.code, 0, forced.stderr)
  t.match(readFileSync(join(dir, 'ferry-sess-a.ferry.jsonl'), 'utf8'), /changed message 0/)
})

t.test('malformed lines are reported with their line numbers; good lines around them come through', async (t) => {
  const lines = session(A, 'first', 3)
  lines.splice(2, 0, '{"kind":"message", broken')
  lines.splice(4, 0, '[1,2,3]')
  const dir = tempDir(t)
  const file = join(dir, 'in.jsonl')
  writeFileSync(file, lines.join('\n') + '\n')
  const r = await ferry(['cat', file])
  t.equal(r.code, 1, 'bad input gives a non-zero exit')
  t.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON`))
  t.match(r.stderr, /in\.jsonl:5: not a ferry record/)
  const recs = records(r.stdout)
  t.equal(recs.length, 3 + 3, 'every good record kept')
  t.same(recs.filter((x) => x.kind === 'message').map((x) => x.id), [`${A}:m0`, `${A}:m1`, `${A}:m2`])
})

t.test('an over-long line is skipped with a located report, not a crash', async (t) => {
  const lines = session(A, 'first', 2)
  const huge = JSON.stringify({ kind: 'message', sid: A, id: `${A}:big`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'x'.repeat(300_000) }] })
  lines.splice(2, 0, huge)
  const r = await ferry(['--max-line-bytes', '100000', 'cat', '-'], { input: lines.join('\n') + '\n' })
  t.equal(r.code, 1)
  t.match(r.stderr, /<stdin>:3: line of 300\d+ bytes is over the 100000-byte cap \(--max-line-bytes\); skipped/)
  t.equal(records(r.stdout).filter((x) => x.kind === 'message').length, 2)
})

t.test('a session of an unknown major format version is refused, others kept', async (t) => {
  const bad = session(B, 'second', 1)
  bad[0] = bad[0]!.replace('"ferry":"1.0"', '"ferry":"2.0"')
  const r = await ferry(['cat', '-'], { input: [...bad, ...session(A, 'first', 1)].join('\n') })
  t.equal(r.code, 1)
  t.match(r.stderr, /uses ferry format 2\.0/)
  t.same([...new Set(records(r.stdout).map((x) => x.sid))], [A])
})

t.test('a Messages-style JSON document is accepted as input', async (t) => {
  const doc = {
    messages: [
      { role: 'user', content: 'Why does npm test fail?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'check package.json', signature: 'sig-abc' },
          { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/home/dev/demo-app/package.json' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '{"scripts":{}}' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'There is no test script.' }] },
    ],
    title: 'npm test fails',
    cwd: '/home/dev/demo-app',
  }
  // Pretty-printed: the document spans many lines.
  const r = await ferry(['cat', '-'], { input: JSON.stringify(doc, null, 2) })
  t.equal(r.code, 0, r.stderr)
  const recs = records(r.stdout)
  t.equal(recs[0].kind, 'session')
  t.equal(recs[0].cwd, undefined, 'metadata after messages is not known at header time…')
  const end = recs.at(-1)
  t.equal(end.kind, 'end')
  t.equal(end.title, 'npm test fails', '…and is restated in end')
  const msgs = recs.filter((x) => x.kind === 'message')
  t.equal(msgs.length, 4)
  t.same(msgs[1].blocks[0], { type: 'thinking', text: 'check package.json', signature: 'sig-abc', provider: 'anthropic' })
  t.same(msgs[1].blocks[1], { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/home/dev/demo-app/package.json' } })
  t.same(msgs[2].blocks[0], { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '{"scripts":{}}' }] })
  // Same document, same ids.
  const again = await ferry(['cat', '-'], { input: JSON.stringify(doc, null, 2) })
  t.same(records(again.stdout), recs)

  const withMetaFirst = await ferry(['cat', '-'], { input: JSON.stringify({ id: 'my-chat', title: 'T', cwd: '/w', model: 'm1', messages: doc.messages }) })
  const h = records(withMetaFirst.stdout)[0]
  t.match(h, { kind: 'session', sid: 'ferry:my-chat', title: 'T', cwd: '/w', model: 'm1' })

  const bare = await ferry(['cat', '-'], { input: JSON.stringify(doc.messages) })
  t.equal(records(bare.stdout).filter((x) => x.kind === 'message').length, 4, 'a bare array of messages works too')

  const broken = await ferry(['cat', '-'], { input: '{"messages": [{"role":"user","content":"a"}, ' })
  t.equal(broken.code, 1)
  t.match(broken.stderr, /not a valid JSON document/)
})
