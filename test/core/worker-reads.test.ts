/**
 * Reads spread over a worker (lib/io/worker-reads.ts) with the real task Claude Code's discovery spreads: every
 * session's metadata read on the worker is what this thread reads, in order; an error crosses as the same
 * message; a task the worker cannot serve is run here instead. The compiled modules are used (dist/lib), since
 * the worker loads the task's module by its URL.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, tempDir } from '../kit.js'

type Meta = Record<string, unknown>
const lib = (p: string) => import(pathToFileURL(join(ROOT, 'dist/lib', p)).href)
const { SpreadReads, workerTask } = (await lib('io/worker-reads.js')) as typeof import('../../lib/io/worker-reads.js')
const { metaTask, readMeta, fromWire } = (await lib('harness/claude-code/session-meta.js')) as typeof import('../../lib/harness/claude-code/session-meta.js')
const { reason } = (await lib('errors.js')) as typeof import('../../lib/errors.js')

const ctx = { maxLineBytes: 256 * 1024 * 1024 }

/** Every call through `reads`, letting the worker's answers in when due (as discovery does). */
async function readAll(reads: InstanceType<typeof SpreadReads<typeof ctx, unknown>>, paths: string[]): Promise<PromiseSettledResult<unknown>[]> {
  const out: Promise<PromiseSettledResult<unknown>>[] = []
  for (const p of paths) {
    // Settled at once: a call run on this thread may fail before the list is awaited.
    out.push(reads.read(p).then((value) => ({ status: 'fulfilled', value }) as const, (reason: unknown) => ({ status: 'rejected', reason }) as const))
    if (reads.due) await reads.pause()
  }
  reads.flush()
  return Promise.all(out)
}

t.test('metadata read on a worker is what this thread reads, in order', async (t) => {
  const home = tempDir(t, 'ferry-wreads-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', '120', '--lines-per-session', '12', '--seed', 'wreads', '--quiet'])
  const projects = join(home, '.claude', 'projects')
  const files = readdirSync(projects).flatMap((p) => readdirSync(join(projects, p)).map((f) => join(projects, p, f))).sort()
  // A missing file every so often: some of them fail on the worker, some here.
  const paths = [...files, ...files].flatMap((f, i) => (i % 7 === 3 ? [join(home, 'gone.jsonl'), f] : [f]))
  const reads = new SpreadReads(metaTask, ctx, 0, () => true)
  t.teardown(() => reads.close())
  const got = await readAll(reads, paths)
  t.ok(reads.spread, 'the worker was started')
  const want = await Promise.allSettled(paths.map((p) => readMeta(ctx, p)))
  t.equal(got.length, want.length)
  got.forEach((g, i) => {
    const w = want[i]!
    if (w.status === 'rejected') {
      t.equal(g.status, 'rejected', `${i}: fails on both threads`)
      if (g.status === 'rejected') t.equal(reason(g.reason), reason(w.reason), `${i}: with the same message`)
    } else t.same(g.status === 'fulfilled' ? fromWire(g.value as Parameters<typeof fromWire>[0]) : g, w.value as Meta, `${i}: same metadata`)
  })
})

t.test('a task the worker cannot serve is run on this thread', async (t) => {
  // The worker loads a module that defines no such task: it answers nothing and is stopped when it fails.
  const task = workerTask('test:never-served', new URL('data:text/javascript,throw new Error("no")'), async (p: string) => p.length)
  const reads = new SpreadReads(task, {}, 0, () => true)
  t.teardown(() => reads.close())
  const got = await Promise.all(['a', 'bb', 'ccc'].map((p) => reads.read(p)).concat((reads.flush(), [])))
  t.same(got, [1, 2, 3])
})
