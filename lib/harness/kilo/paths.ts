/**
 * Where Kilo keeps its database: `$KILO_DB` (absolute or `:memory:` as is,
 * relative joined to the data dir), else `<data>/kilo/kilo.db`, and channel
 * databases (`kilo-<channel>.db`) beside it, by the family's rules
 * (`../family/opencode-store.ts`) with Kilo's names. Spilled tool outputs
 * sit in `<data>/kilo/tool-output/`; the config (not read by ferry) is
 * `$XDG_CONFIG_HOME/kilo/kilo.json`.
 */
import { storeOf } from '../family/opencode-store.js'

const kiloStore = storeOf({ harness: 'kilo', name: 'Kilo', dir: 'kilo', db: 'kilo.db', env: 'KILO_DB', channel: /^kilo-[A-Za-z0-9._-]+\.db$/ })

export const store = kiloStore.store
export const { dataDir, primaryDb, databases, layout } = kiloStore
