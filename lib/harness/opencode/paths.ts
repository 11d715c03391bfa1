/**
 * Where OpenCode keeps its database: `$OPENCODE_DB`, else
 * `<data>/opencode/opencode.db`, and channel databases
 * (`opencode-<channel>.db`) beside it. The rules are the family's
 * (`../family/opencode-store.ts`); these are OpenCode's names.
 */
import { storeOf } from '../family/opencode-store.js'

const openCodeStore = storeOf({
  harness: 'opencode',
  name: 'OpenCode',
  dir: 'opencode',
  db: 'opencode.db',
  env: 'OPENCODE_DB',
  channel: /^opencode-[A-Za-z0-9._-]+\.db$/,
})

export const store = openCodeStore.store
export const { dataDir, primaryDb, databases, layout } = openCodeStore
