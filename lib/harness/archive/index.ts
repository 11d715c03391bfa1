/**
 * The ferry archive as a store (kind `store`): an SQLite database holding
 * copies of every other harness's sessions (`ferry archive` fills it). It
 * lists, resolves and reads archived sessions like any store, and is a sink
 * (`convert --to archive`). Because it holds copies, it is left out where
 * "every store" is meant (plain `ls`, bare-id refs, `ferry archive` itself)
 * and used where asked for by name or with `--archive`. See README,
 * "Archive and search", and docs/formats/archive.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { ownsNative, read } from './source.js'
import { sink } from './sink.js'

export const archive = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  ownsNative,
})
