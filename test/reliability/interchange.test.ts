// #11 defect 4: one damaged first line, a first line over 1 MiB, or a BOM
// must not turn a line stream into a failed JSON document (or lose a
// Messages document).
import t from 'tap'
import { Readable } from 'node:stream'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Diagnostics } from '../../lib/diagnostics.js'
import { parseStream } from '../../lib/interchange/parse.js'
import { FIXTURES } from '../kit.js'

const demo = readFileSync(join(FIXTURES, 'ferry/codex-demo.ferry.jsonl'))
const lines = demo.toString('utf8').split('\n').filter(Boolean)

async function parse(bytes: Buffer | string): Promise<{ recs: Array<{ kind: string; id?: string }>; diags: Diagnostics; error: unknown }> {
  const diags = new Diagnostics({ stream: null })
  const recs: Array<{ kind: string; id?: string }> = []
  let error: unknown = null
  try {
    for await (const r of Readable.from([Buffer.from(bytes)]).pipe(parseStream({ diagnostics: diags, harness: 'ferry', file: 'in.jsonl' }))) recs.push(r)
  } catch (err) {
    error = err
  }
  return { recs, diags, error }
}

t.test('a damaged first line loses that line only', async (t) => {
  const damaged = [lines[0]!.slice(0, 25) + '#', ...lines.slice(1)].join('\n') + '\n'
  const { recs, diags, error } = await parse(damaged)
  t.equal(error, null)
  t.equal(recs.length, lines.length - 1, 'every other record')
  t.match(diags.items.map((d) => `${d.code} ${d.position?.line}`), ['bad-line 1'])
})

t.test('a first line over 1 MiB (a record) is capped and skipped, the rest come through', async (t) => {
  const huge = JSON.stringify({ kind: 'native', sid: 'x', id: 'x:1', native_type: 'x/y', pad: 'a'.repeat(1_200_000) })
  const { recs, error } = await parse([huge, ...lines].join('\n') + '\n')
  t.equal(error, null)
  t.ok(recs.length >= lines.length, `${recs.length} records`)
})

t.test('a BOM before a line stream or a Messages document loses nothing', async (t) => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf])
  const a = await parse(Buffer.concat([bom, demo]))
  t.equal(a.recs.length, lines.length)
  const doc = JSON.stringify({ id: 'd1', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }] })
  const b = await parse(Buffer.concat([bom, Buffer.from(doc)]))
  t.equal(b.error, null)
  t.equal(b.recs.filter((r) => r.kind === 'message').length, 2)
})

t.test('a broken Messages document is one located error, never an unhandled rejection', async (t) => {
  const { error } = await parse('{\n  "messages": [ {"role": "user", "content": "hi"}, oops')
  t.match(error, { code: 'bad-document' })
})

t.test('a first line that is a whole JSON array (100k deep) before records is a damaged stream, not a document', async (t) => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const { recs, error } = await parse([deep, ...lines].join('\n') + '\n')
  t.equal(error, null)
  t.equal(recs.length, lines.length, 'every record after it')
  const doc = await parse(JSON.stringify([{ role: 'user', content: 'hi' }]) + '\n')
  t.equal(doc.recs.filter((r) => r.kind === 'message').length, 1, 'a one-line array document is still a document')
})

// #47 item 8: a header whose "kind" is misspelt is a whole object without `kind`, as a document's
// first line would be; records after it make it a stream with one bad line.
t.test('item 8: a first line with "kind" misspelt costs that line, not the stream', async (t) => {
  const damaged = [lines[0]!.replace('"kind"', '"knid"'), ...lines.slice(1)].join('\n') + '\n'
  const { recs, diags, error } = await parse(damaged)
  t.equal(error, null)
  t.equal(recs.length, lines.length - 1, 'every other record')
  t.match(diags.items.map((d) => `${d.code} ${d.position?.line}`), ['bad-record 1'])
  const one = await parse(JSON.stringify({ id: 'd1', messages: [{ role: 'user', content: 'hi' }] }) + '\n\n')
  t.equal(one.recs.filter((r) => r.kind === 'message').length, 1, 'a one-line Messages document is still a document')
})

t.test('item 8: a 100,000-deep array inside a record line costs that line', async (t) => {
  const deep = JSON.stringify({ kind: 'native', sid: 'x', id: 'x:deep' }).replace('}', `,"v":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)
  const { recs, error } = await parse([...lines.slice(0, 3), deep, ...lines.slice(3)].join('\n') + '\n')
  t.equal(error, null)
  t.ok(recs.length >= lines.length, 'every good record around it')
})

t.test('item 14: a Messages document with one message that is not an object keeps the messages after it', async (t) => {
  const doc = JSON.stringify({ id: 'd1', messages: [{ role: 'user', content: 'one' }, 42, { role: 'assistant', content: 'two' }, { role: 'user', content: 'three' }] }, null, 2)
  const { recs, diags, error } = await parse(doc)
  t.equal(error, null, 'no error ends the read')
  t.equal(recs.filter((r) => r.kind === 'message').length, 3, 'the three messages')
  t.match(diags.items.map((d) => d.code), ['bad-record'], 'the bad one reported')
})
