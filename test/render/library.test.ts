/**
 * The render library in-process: the text cleaner, the fence rule, and a
 * seeded property over hostile strings — whatever a message holds, the HTML
 * gets no element and the Markdown no tag of its own making.
 */
import t from 'tap'
import fc from 'fast-check'
import { Readable } from 'node:stream'
import { clean, cleanText, fence, renderer, renderStages, safeMarkdown } from '../../lib/render/index.js'
import { pipeline } from '../../lib/io/pipeline.js'
import { Writable } from 'node:stream'

async function renderToString(records: unknown[], opts: Parameters<typeof renderStages>[0]): Promise<string> {
  let out = ''
  await pipeline(Readable.from(records), ...renderStages(opts), new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }))
  return out
}

const SID = 'ferry:lib-1'
const session = { kind: 'session', ferry: '1.0', sid: SID, id: `${SID}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'lib-1', title: 't' }
const message = (i: number, role: string, text: string) => ({ kind: 'message', sid: SID, id: `${SID}:m${i}`, role, ts: null, blocks: [{ type: 'text', text }] })

t.test('clean: surrogates, NUL, escapes, controls, the cut', async (t) => {
  t.equal(clean('a\ud800b\udc00c').text, 'a\ufffdb\ufffdc', 'lone surrogates → U+FFFD')
  t.equal(clean('😀').text, '😀', 'pairs stay')
  t.equal(clean('x\u0000y\u001b[31mred\u001b[0m\u001b]0;title\u0007z\u0008\r\n').text, 'xyredz\n', 'NUL, CSI, OSC, BS, CR go')
  t.same(clean('abcdef', 4), { text: 'abcd', cut: 2 })
  t.equal(clean('ab😀', 3).text, 'ab', 'never half a pair')
  t.match(cleanText('x'.repeat(50), 10), /^x{10}\n… \[40 more characters not shown\]$/)
})

t.test('fence: longer than any backtick run inside', async (t) => {
  t.equal(fence('a'), '```\na\n```\n')
  t.equal(fence('x ````` y'), '``````\nx ````` y\n``````\n')
  t.equal(safeMarkdown('```\nopen <b>'), '```\nopen <b>\n```', 'an unclosed fence is closed; inside code nothing changes')
  t.equal(safeMarkdown('a <b> `<i>` c'), 'a &lt;b&gt; `<i>` c', 'HTML outside code is text')
})

t.test('property: session text never becomes markup (seeded)', async (t) => {
  const piece = fc.constantFrom('<script>x()</script>', '<img src=x onerror=y()>', '</details>', '-->', '<!--', '`', '```', '[a](javascript:b())', '"', "'", '&', '\ud800', '\u0000', '\u001b[2J', '\n', ' ', 'text')
  const text = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''))
  await fc.assert(
    fc.asyncProperty(text, text, async (u, a) => {
      const recs = [session, message(1, 'user', u), message(2, 'assistant', a), { kind: 'end', sid: SID, id: `${SID}:end` }]
      const html = await renderToString(recs, { format: 'html', redact: false })
      const body = html.slice(html.indexOf('<main>'), html.lastIndexOf('</main>'))
      if (/<(script|img|iframe|svg)\b/i.test(body)) throw new Error(`element in HTML: ${body}`)
      if (/href="(?!#|https?:|mailto:)/i.test(body)) throw new Error(`unsafe link: ${body}`)
      if (/[\u0000\u001b]|[\ud800-\udbff](?![\udc00-\udfff])/.test(html)) throw new Error('control or lone surrogate in HTML')
      const md = await renderToString(recs, { format: 'md', redact: false })
      const outside = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '').replace(/(`+)[^`]*?\1/g, '')
      const tags = [...outside.matchAll(/<\/?([a-z]+)/gi)].map((m) => m[1]!.toLowerCase()).filter((x) => !['details', 'summary', 'a', 'b', 'code', 'sub'].includes(x))
      if (tags.length) throw new Error(`tag in Markdown: ${tags.join(',')}`)
    }),
    { seed: 17, numRuns: 150 },
  )
  t.pass('150 runs')
})

t.test('renderer alone: no redaction, the footer says so; a range', async (t) => {
  const recs = [session, message(1, 'user', 'mail ada@corp-mail.net'), message(2, 'assistant', 'two'), message(3, 'user', 'three')]
  let out = ''
  await pipeline(Readable.from(recs), renderer({ format: 'md', range: '2-3' }), new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }))
  t.notMatch(out, /id="m1"/)
  t.match(out, /id="m2"[\s\S]*id="m3"/)
  t.match(out, /not redacted/)
  const shared = await renderToString(recs, { format: 'md' })
  t.notMatch(shared, /ada@corp-mail\.net/, 'renderStages redacts by default')
  t.match(shared, /redacted: email ×1/)
  t.throws(() => renderer({ format: 'pdf' as never }), /unknown format/)
})

t.test('a sub-agent session is nested in the session that started it, in every format', async (t) => {
  const child = 'ferry:lib-child'
  const recs = [
    session,
    { kind: 'message', sid: SID, id: `${SID}:m1`, role: 'assistant', ts: null, blocks: [{ type: 'tool_use', id: 'task_1', name: 'Task', input: { description: 'look around', prompt: 'find it' } }] },
    { kind: 'end', sid: SID, id: `${SID}:end` },
    { ...session, sid: child, id: `${child}:session`, native_id: 'lib-child', title: 'child', parent: { sid: SID, kind: 'subagent', tool_use_id: 'task_1' } },
    { ...message(1, 'user', 'find it'), sid: child, id: `${child}:m1` },
    { kind: 'end', sid: child, id: `${child}:end` },
    { ...session, sid: 'ferry:lib-2', id: 'ferry:lib-2:session', native_id: 'lib-2', title: 'next' },
    { ...message(1, 'user', 'next one'), sid: 'ferry:lib-2', id: 'ferry:lib-2:m1' },
  ]
  const html = await renderToString(recs, { format: 'html', redact: false })
  const sections = [...html.matchAll(/<section class="session( subagent)?"|<\/section>/g)].map((m) => (m[0] === '</section>' ? 'close' : m[1] ? 'sub' : 'open'))
  t.same(sections, ['open', 'sub', 'close', 'close', 'open', 'close'], 'the sub-agent section sits inside its parent, the next session after both')
  t.match(html, /<b>started by<\/b> Task <code>look around<\/code>/, 'names the call that started it')
  t.match(html, /href="#call-task_1"/, 'and links back to it')
  t.match(html, /id="s2-m1"/, 'anchors of later sessions are prefixed')
  t.match(html, /3 sessions \(1 sub-agent\)/)
  const md = await renderToString(recs, { format: 'md', redact: false })
  t.match(md, /^### Sub-agent: child/m)
  const term = await renderToString(recs, { format: 'terminal', redact: false })
  t.match(term, /^│ ━━ sub-agent /m, 'the terminal indents it with a bar')
  t.match(term, /^│ #1 user/m)
  t.match(term, /^#1 user/m, 'the next top-level session is not indented')
})
