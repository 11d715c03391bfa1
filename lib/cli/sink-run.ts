/**
 * Running a record stream into a harness sink and reporting what was
 * written, one line per session on stdout (or JSON with --json).
 */
import type { Readable, Transform } from 'node:stream'
import type { StoreContext } from '../context.js'
import { errorMessage, UsageError } from '../errors.js'
import { getHarness } from '../harness/registry.js'
import type { WriteOptions, WrittenSession } from '../harness/types.js'
import { pipeline } from '../pipeline.js'
import { writtenLine } from './io.js'

export async function runIntoSink(ctx: StoreContext, source: Readable, transforms: Transform[], to: string, opts: WriteOptions, json: boolean): Promise<WrittenSession[]> {
  const h = getHarness(to)
  if (!h.sink) throw new UsageError(`${h.name} (${h.id}) cannot be written yet`)
  const sink = h.sink(ctx, opts)
  const written: WrittenSession[] = []
  sink.on('written', (ws: WrittenSession) => {
    written.push(ws)
    // For the interchange on stdout the records themselves are the output.
    if (to === 'ferry' && !opts.out) return
    process.stdout.write(writtenLine(ws, json) + '\n')
  })
  sink.on('session-error', (err: unknown, sid: string) => {
    ctx.diagnostics.error('write-failed', `${sid}: ${errorMessage(err)}`)
  })
  await pipeline(source, ...transforms, sink)
  return written
}
