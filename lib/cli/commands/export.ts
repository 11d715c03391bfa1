/** `ferry export --format parquet|jsonl --out DIR`: the archive as Hive-partitioned files (see lib/archive/export.ts). */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { FerryError } from '../../errors.js'
import { openArchive } from '../../archive/store/db.js'
import { exportArchive, type ExportFormat } from '../../archive/export.js'
import { contextFrom, type Args } from '../options.js'
import { archiveHarness } from '../archive-options.js'
import { asDiagnostic, Diagnostics } from '../../diagnostics.js'
import { damageError, isDamage } from '../../archive/store/damage.js'

export const command = 'export'
export const describe = 'Write the archive as Parquet or gzipped JSON lines, Hive-partitioned (harness=…/month=…), incrementally'

export function builder(y: Argv): Argv {
  return y
    .option('format', { type: 'string', choices: ['parquet', 'jsonl'], default: 'parquet', describe: 'File format' })
    .option('out', { type: 'string', demandOption: true, describe: 'Export directory (a re-run adds only what is new)' })
    .option('json', { type: 'boolean', default: false, describe: 'The summary as one JSON object on stdout' })
    .example('ferry export --out /srv/team/ferry', 'Parquet for DuckDB / Spark / Polars')
    .example("duckdb -c \"SELECT harness, count(*) FROM read_parquet('/srv/team/ferry/records/**/*.parquet', hive_partitioning = true) GROUP BY 1\"", 'query it')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const path = archiveHarness().root(ctx)
  if (!existsSync(path)) throw new FerryError('no archive here (run `ferry archive` first, or give --db FILE)', { code: 'db-error', position: { file: path } })
  const db = openArchive(path, { readonly: true })
  try {
    const diags = new Diagnostics()
    const sum = await exportArchive(db, { format: String(argv.format) as ExportFormat, out: resolve(String(argv.out)), onBadRow: (e) => diags.report({ ...asDiagnostic(e), source: archiveHarness().id }) }).catch((err: unknown) => {
      throw isDamage(err) ? damageError(db, err) : err
    })
    if (diags.errors) process.exitCode = 1
    if (argv.json) process.stdout.write(JSON.stringify(sum) + '\n')
    else process.stderr.write(`ferry: export ${sum.out}: ${sum.files} files (${sum.sessions} session rows, ${sum.records} records), ${(sum.bytes / 1024 / 1024).toFixed(1)} MiB\n`)
  } finally {
    db.close()
  }
}
