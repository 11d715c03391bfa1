/**
 * ZCode: one SQLite database for every session (read strictly read-only),
 * written only into a database ZCode created (or a standalone `--out FILE`).
 * See docs/formats/zcode.md and README.md beside this file.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const zcode = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
})
