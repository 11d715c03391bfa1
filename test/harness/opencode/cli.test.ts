// Writing into OpenCode's store from the command line: the typed write flags
// (`--opencode-provider`, `--opencode-model`, `--opencode-import` and its
// negation) and the hand-over to `opencode import`, found on the run's PATH
// (a stand-in script here: the real agent is never started by tests).
import t from 'tap'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { findClient } from '../../../lib/harness/family/opencode-import.js'
import { ferry, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder
import { createDb, insertDocument, idMaker } from '../../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { demoSession } from '../../../fixtures/opencode/scenarios.mjs'

/** A directory with an `opencode` that logs `<cwd>|<args>` and answers like `opencode import`. */
function fakeOpencode(t: any) {
  const bin = tempDir(t, 'ferry-oc-bin-')
  const log = join(bin, 'calls.log')
  writeFileSync(join(bin, 'opencode'), `#!/bin/sh\nprintf '%s|%s\\n' "$PWD" "$*" >> '${log}'\necho "Imported session from $2"\n`)
  chmodSync(join(bin, 'opencode'), 0o755)
  return { bin, log, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) }
}

/** A HOME whose demo session lives in a directory that exists here (import runs there). */
function home(t: any) {
  const h = tempDir(t, 'ferry-oc-cli-')
  const project = join(h, 'demo-app')
  mkdirSync(project)
  const dir = join(h, '.local/share/opencode')
  mkdirSync(dir, { recursive: true })
  const db = createDb(join(dir, 'opencode.db'))
  const demo = demoSession(idMaker())
  demo.info.directory = project
  insertDocument(db, demo)
  db.close()
  return { home: h, project, ref: `opencode:${demo.info.id}` }
}

const lines = (s: string) => s.trim().split('\n').map((l) => l.split('\t'))

t.test('into the store: the document is handed to opencode import, run from the session directory', async (t) => {
  const oc = fakeOpencode(t)
  const { home: h, project, ref } = home(t)
  const r = await ferry(['convert', ref, '--to', 'opencode', '--home', h], { env: { PATH: `${oc.bin}${delimiter}${process.env.PATH}` } })
  t.equal(r.code, 0, r.stderr)
  const [[harness, id, path, note]] = lines(r.stdout) as [string[]]
  t.equal(harness, 'opencode')
  t.match(note, /imported into OpenCode/)
  t.equal(path, join(h, '.local/share/opencode/opencode.db'))
  const calls = oc.calls()
  t.equal(calls.length, 1)
  t.match(calls[0], new RegExp(`^${project}\\|import ${h}/\\.local/share/opencode/ferry-import/${id}\\.json$`))
  t.notOk(existsSync(join(h, '.local/share/opencode/ferry-import', `${id}.json`)), 'the imported document is removed')
})

t.test('--no-opencode-import keeps the document and says how; --opencode-model/--opencode-provider reach it', async (t) => {
  const oc = fakeOpencode(t)
  const { home: h, project, ref } = home(t)
  const r = await ferry(['convert', ref, '--to', 'opencode', '--home', h, '--no-opencode-import', '--opencode-model', 'm-one', '--opencode-provider', 'p-one'], {
    env: { PATH: `${oc.bin}${delimiter}${process.env.PATH}` },
  })
  t.equal(r.code, 0, r.stderr)
  const [[, , path, note]] = lines(r.stdout) as [string[]]
  t.same(oc.calls(), [], 'opencode is not run')
  t.match(note, `not imported; to import: cd ${project} && opencode import ${path}`)
  const doc = JSON.parse(readFileSync(path!, 'utf8'))
  const assistants = doc.messages.filter((m: any) => m.info.role === 'assistant')
  t.ok(assistants.length > 0)
  t.ok(assistants.every((m: any) => m.info.modelID === 'm-one' && m.info.providerID === 'p-one'))
  t.ok(doc.messages.filter((m: any) => m.info.role === 'user').every((m: any) => m.info.model.modelID === 'claude-sonnet-4-5'), 'user messages keep their own model')

  // The explicit positive form still works too.
  const again = await ferry(['convert', ref, '--to', 'opencode', '--home', h, '--opencode-import', '--force'], { env: { PATH: `${oc.bin}${delimiter}${process.env.PATH}` } })
  t.equal(again.code, 0, again.stderr)
  t.equal(oc.calls().length, 1)
})

t.test('opencode is looked up on the context PATH, never this process PATH', async (t) => {
  const oc = fakeOpencode(t)
  const saved = process.env.PATH
  process.env.PATH = `${oc.bin}${delimiter}${saved}`
  t.teardown(() => {
    process.env.PATH = saved
  })
  t.equal(await findClient({ PATH: '/nonexistent' }, 'opencode'), null)
  t.equal(await findClient({}, 'opencode'), null, 'a context without PATH has no opencode')
  t.equal(await findClient({ PATH: `/nonexistent${delimiter}${oc.bin}` }, 'opencode'), join(oc.bin, 'opencode'))
  mkdirSync(join(oc.bin, 'dir', 'opencode'), { recursive: true })
  t.equal(await findClient({ PATH: join(oc.bin, 'dir') }, 'opencode'), null, 'a directory named opencode is not it')
})
