/**
 * Running a record stream into a harness sink and reporting what was
 * written, one line per session on stdout (or JSON with --json). Sessions
 * that could not be written were reported by the sink (sink policy); the
 * NotWrittenError it ends with only sets the exit code here.
 */
import type { Readable, Transform } from 'node:stream'
import type { StoreContext } from '../context.js'
import { NotWrittenError, UsageError } from '../errors.js'
import { getHarness } from '../harness/registry.js'
import type { WriteOptions, WrittenSession } from '../harness/types.js'
import { pipeline } from '../pipeline.js'
import { report as printReport, salvage, stdoutIsReport, writtenLine } from './io.js'

export async function runIntoSink(ctx: StoreContext, source: Readable, transforms: Transform[], to: string, opts: WriteOptions & Record<string, unknown>, json: boolean): Promise<WrittenSession[]> {
  const h = getHarness(to)
  if (!h.sink) throw new UsageError(`${h.name} (${h.id}) cannot be written yet`)
  const sink = h.sink(ctx, opts)
  const written: WrittenSession[] = []
  // The stream harness on stdout: the records themselves are the output.
  const report = !(h.kind === 'stream' && !opts.out)
  if (report) stdoutIsReport()
  sink.on('written', (ws: WrittenSession) => {
    written.push(ws)
    if (report) printReport(writtenLine(ws, json) + '\n')
  })
  const salvaged = salvage(source)
  try {
    await pipeline(salvaged.source, ...transforms, sink)
  } catch (err) {
    if (!(err instanceof NotWrittenError)) throw err
    process.exitCode = 1
  }
  // The read failed midway: the sessions before it are written, the cut one is not; then the located error.
  if (salvaged.failure()) throw salvaged.failure()
  return written
}
