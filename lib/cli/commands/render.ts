/**
 * `ferry render REF… --format md|html [--out FILE]`: one self-contained
 * document, redacted by default (credentials, home paths, e-mail
 * addresses); `--no-redact` warns. Other transforms chain as on `convert`.
 * `--out` is written to a temp file and renamed when complete.
 */
import { Writable } from 'node:stream'
import type { Argv } from 'yargs'
import { AtomicFile } from '../../io/atomic.js'
import { pipeline } from '../../io/pipeline.js'
import { renderStages } from '../../render/index.js'
import { contextFrom, readFlagOptions, readOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { pickedRef, wantsPicker } from '../picked-ref.js'
import { openSources, selectionOptions } from '../sources.js'
import { buildTransforms, cliTransforms } from '../transforms.js'
import { refsAndRange, viewOptions, withRefs } from '../view-options.js'

export const command = 'render [ref..]'
export const describe = 'Render sessions as one Markdown or HTML document to share (redacted by default)'

/** A Writable into an AtomicFile: committed on finish, removed on error. */
function atomicWritable(file: AtomicFile, force: boolean): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      file.write(chunk).then(() => cb(), cb)
    },
    final(cb) {
      file.commit({ force }).then(() => cb(), cb)
    },
    destroy(err, cb) {
      file.abort().then(() => cb(err), () => cb(err))
    },
  })
}

export function builder(y: Argv): Argv {
  let out = viewOptions(selectionOptions(readFlagOptions(y)), 'full')
    .positional('ref', { type: 'string', array: true, describe: 'harness:id (optionally #A-B), a session path, or - for stdin' })
    .option('format', { type: 'string', choices: ['md', 'html'], demandOption: true, describe: 'Markdown (GitHub-flavoured) or one self-contained HTML file' })
    .option('out', { type: 'string', describe: 'Write the document to FILE (atomically) instead of stdout' })
    .option('force', { type: 'boolean', default: false, describe: 'With --out: replace an existing file' })
    .option('images', { type: 'string', choices: ['inline', 'strip'], default: 'inline', describe: 'HTML: images inline as data: URIs (up to --max-image-bytes), or placeholders', group: 'View:' })
    .option('max-image-bytes', { type: 'number', default: 1024 * 1024, describe: 'HTML: inline images up to this size; bigger ones become a placeholder', group: 'View:' })
  for (const t of cliTransforms()) {
    const describe = t.name === 'redact' ? 'Redaction is on by default (credentials, home paths, e-mails); --redact OPTIONS adds a redact stage with those options, --no-redact turns the default off' : `Apply the ${t.name} transform (value: its options, quoted), in the order given`
    out = out.option(t.name, { type: 'string', describe, group: 'Transforms:' })
  }
  return out
    .example('ferry render claude-code:5d2f… --format html --out session.html', 'a redacted page to attach to a bug report')
    .example("ferry render codex:0199…#5-12 --format md --truncate '--tool-output 2000'", 'messages 5 to 12 as Markdown, outputs capped')
    .example('ferry cat codex:0199… | ferry render - --format md --no-redact', 'from a pipe, without redaction (warns)')
}

export async function handler(argv: Args & { rawArgs: string[] }): Promise<void> {
  const ctx = contextFrom(argv)
  const { refs, range } = refsAndRange(argv)
  if (wantsPicker(argv, refs)) {
    const ref = await pickedRef(ctx)
    if (!ref) return
    refs.push(ref)
  }
  const redactOn = argv.redact !== false
  if (!redactOn) process.stderr.write('ferry: warning: --no-redact: the document may contain credentials, home paths and e-mail addresses\n')
  const { source } = await openSources(ctx, withRefs(argv, refs), (from) => ({ native: false, ...readOptsFor(argv, from) }))
  const transforms = await buildTransforms(argv.rawArgs)
  const stages = renderStages({
    format: argv.format as 'md' | 'html',
    redact: redactOn,
    stages: transforms,
    range,
    thinking: argv.thinking !== false,
    tools: argv.tools as 'full' | 'brief' | 'none',
    context: argv.context === true,
    images: argv.images as 'inline' | 'strip',
    ...(typeof argv.maxImageBytes === 'number' ? { maxImageBytes: argv.maxImageBytes } : {}),
  })
  if (typeof argv.out === 'string') {
    const file = await AtomicFile.create(argv.out, { force: Boolean(argv.force) })
    await pipeline(source, ...stages, atomicWritable(file, Boolean(argv.force)))
  } else await pipeline(source, ...stages, process.stdout)
  finishDiagnostics(ctx.diagnostics)
}
