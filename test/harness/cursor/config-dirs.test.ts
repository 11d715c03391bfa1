// Cursor CLI chat stores are found under ~/.config/Cursor/chats (capital C) as well as ~/.cursor
// and ~/.config/cursor, also when XDG_CONFIG_HOME points elsewhere (fixtures/cursor/make-fixtures.mjs).
import t from 'tap'
import { join } from 'node:path'
import { context, kit } from '../../kit.js'
import { configChatDirs } from '../../../lib/harness/cursor/paths.js'

const cu = kit('cursor')
const IDS = { xdg: 'e5b4a6b7-0000-4000-8000-00000000000e', xdgCap: 'e5b4a6b7-0000-4000-8000-0000000000ce' }

t.test('~/.config/Cursor/chats is listed, with XDG_CONFIG_HOME unset or elsewhere', async (t) => {
  const home = cu.home(t, 'stores')
  for (const env of [{ HOME: home }, { HOME: home, XDG_CONFIG_HOME: join(home, 'elsewhere') }]) {
    const ctx = context({ home, env })
    t.same(configChatDirs(ctx), [join(home, '.config', 'cursor'), join(home, '.config', 'Cursor')], 'both spellings, existing ones only')
    const rows = await cu.discover(ctx)
    t.match(rows.find((x) => x.id === IDS.xdgCap), { title: 'Capital C', cwd: '/home/dev/demo-app' }, `~/.config/Cursor/chats (XDG_CONFIG_HOME ${env.XDG_CONFIG_HOME ? 'elsewhere' : 'unset'})`)
    t.ok(rows.some((x) => x.id === IDS.xdg), '~/.config/cursor/chats still read')
    const recs = await cu.read(ctx, IDS.xdgCap)
    t.ok(recs.some((r: any) => r.kind === 'message' && r.role === 'assistant' && r.blocks.some((b: any) => b.text === 'Hello again.')), 'and read')
  }
  const own = context({ home, env: { HOME: home, CURSOR_CONFIG_DIR: join(home, '.config', 'Cursor') } })
  t.equal(configChatDirs(own)[0], join(home, '.config', 'Cursor'), 'CURSOR_CONFIG_DIR first')
  t.same(await cu.discover(context({ home: join(home, 'nothing-here'), env: { CURSOR_CONFIG_DIR: join(home, '.config', 'Cursor') } })).then((r) => r.map((x) => x.id)), [IDS.xdgCap], 'CURSOR_CONFIG_DIR alone finds its chats')
})
