/**
 * `ferry/transforms` is a library: it never writes to stdout/stderr and
 * never sets the exit code, even for what the CLI turns into reports and
 * exit 1 (redact check/report, filter counts). Run in a child process so
 * its stdout, stderr and exit code are the library's alone (issue #10, defect 7).
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, tempDir } from '../kit.js'

const AN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const SECRET = 'ghp_' + Array.from({ length: 36 }, (_, i) => AN[(i * 29 + 1) % AN.length]).join('')

t.test('reports are returned, never printed', async (t) => {
  const script = `
    import { Readable, Writable } from 'node:stream'
    import { pipeline } from 'node:stream/promises'
    import { redact, filter } from 'ferry/transforms'
    const sid = 'codex:0199aaaa-0000-7000-8000-000000000001'
    const recs = () => [
      { kind: 'session', ferry: '1.0', sid, id: sid + ':session', source: { harness: 'codex', locator: {} }, native_id: sid.slice(6), title: 't' },
      { kind: 'message', sid, id: sid + ':m1', role: 'user', ts: null, blocks: [{ type: 'text', text: 'token ${SECRET}' }] },
      { kind: 'end', sid, id: sid + ':end' },
    ]
    const sinkOf = (out) => new Writable({ objectMode: true, write: (r, _e, cb) => (out.push(r), cb()) })
    const checked = []
    const check = redact({ check: true, report: true })
    let report
    check.on('report', (r) => (report = r))
    await pipeline(Readable.from(recs()), check, sinkOf(checked))
    const f = filter({ since: '7d', invert: true })
    await pipeline(Readable.from(recs()), f, sinkOf([]))
    const { writeFileSync } = await import('node:fs')
    writeFileSync(process.env.OUT, JSON.stringify({ checked: checked.length, report, counts: f.counts, exitCode: process.exitCode ?? null }))
  `
  const out = join(tempDir(t), 'result.json')
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, OUT: out }, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout, '', 'nothing on stdout')
  t.equal(r.stderr, '', 'nothing on stderr')
  const res = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(res.exitCode, null, 'exit code untouched')
  t.equal(res.checked, 0, 'check emits no records')
  t.same(res.report.redacted, { 'github-token': 1 })
  t.same(res.report.records.map((x: any) => x.id), ['codex:0199aaaa-0000-7000-8000-000000000001:m1'])
  t.notMatch(JSON.stringify(res.report), SECRET)
  t.same(res.counts, { sessions: 1, messages: 1, records: 3 }, 'counts returned (an undated session is not in the last 7 days: inverted, it passes)')
})

t.test('transforms/ imports nothing from lib/cli and no CLI flag type', async (t) => {
  for (const f of readdirSync(join(ROOT, 'transforms')).filter((x) => x.endsWith('.ts'))) {
    const src = readFileSync(join(ROOT, 'transforms', f), 'utf8')
    t.notMatch(src, /(from|import\()\s*['"][^'"]*lib\/cli\//, `${f}: no lib/cli import`)
    t.notMatch(src, /CliFlag|from\s*['"][^'"]*harness\/types/, `${f}: no harness flag types`)
    t.notMatch(src, /process\.(stdout|stderr|exitCode)/, `${f}: no process I/O`)
  }
})
