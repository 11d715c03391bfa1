// Shared by the OpenCode tests: a HOME holding an OpenCode 1.18.33-shaped
// database with every scenario, and small readers over the harness.
// Sinks map tool names through the vocabularies the registry registers.
import '../../../lib/harness/registry.js'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { FerryRecord } from '../../../lib/model.js'
import { opencode } from '../../../lib/harness/opencode/index.js'
import type { SessionInfo } from '../../../lib/harness/types.js'
import { tempDir } from '../../helpers.js'
// @ts-ignore plain JS fixture builder, shared with the sample-store script
import { createDb, insertDocument, idMaker } from '../../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { archivedSession, demoSession, richSessions } from '../../../fixtures/opencode/scenarios.mjs'

/** A context that collects diagnostics and finds no `opencode` on PATH. */
export function quietCtx(home: string, env: NodeJS.ProcessEnv = {}) {
  return createContext({ home, env: { PATH: '/nonexistent', ...env }, diagnostics: new Diagnostics({ stream: null }) })
}

/** A HOME with one OpenCode database holding every scenario. */
export function buildHome(t: any) {
  const home = tempDir(t, 'ferry-oc-')
  const dir = join(home, '.local/share/opencode')
  mkdirSync(dir, { recursive: true })
  const db = createDb(join(dir, 'opencode.db'))
  const ids = idMaker()
  const demo = demoSession(ids)
  const rich = richSessions(ids)
  const arch = archivedSession(ids)
  insertDocument(db, demo)
  insertDocument(db, rich.parent, { rawParts: { [rich.badPart]: '{"type":"text","text":"cut off' } })
  insertDocument(db, rich.child)
  insertDocument(db, arch, { archived: 1795800009000 })
  db.close()
  return { home, db: join(dir, 'opencode.db'), demo, rich, arch }
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

export async function readAll(ctx: any, info: SessionInfo, opts = {}): Promise<FerryRecord[]> {
  return collect(opencode.read!(ctx, info, opts) as AsyncIterable<FerryRecord>)
}
