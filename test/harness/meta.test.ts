// A harness's facts are declared once, in its folder's meta.ts: the manifest (what the parser and the short
// commands read) and the loaded harness (its index.ts, `defineHarness(meta, {...})`) are built from the same
// objects; defineHarness refuses a meta whose parts are not the code's; and the parser, `ferry search` and
// `ferry ls` import no harness code at load (lib/harness/README.md; docs/performance.md, "Harness facts apart
// from harness code (issue #49)").
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { manifest } from '../../lib/harness/manifest.js'
import { harnesses } from '../../lib/harness/registry.js'
import { defineHarness, defineMeta } from '../../lib/harness/types.js'
import { ROOT } from '../kit.js'

t.test('every manifest entry is its loaded harness, as the registry holds it', async (t) => {
  t.same(manifest.map((e) => e.id), harnesses.map((h) => h.id), 'the same harnesses, in the same order')
  for (const [i, e] of manifest.entries()) {
    const h = harnesses[i]!
    for (const k of ['store', 'readFlags', 'writeFlags', 'tools'] as const) t.equal(e[k], h[k], `${e.id}: ${k} is the same object`)
    for (const k of ['name', 'kind', 'resumeHint', 'outIsStore', 'oneSessionPerFile', 'independentSessions'] as const) t.equal(e[k], h[k], `${e.id}: ${k}`)
    t.equal(e.holdsCopies, Boolean(h.holdsCopies), `${e.id}: holdsCopies`)
    t.same([e.reads, e.writes, e.lists], [Boolean(h.read), Boolean(h.sink), Boolean(h.discover)], `${e.id}: the parts it has`)
    t.equal(await e.load(), h, `${e.id}: load() gives the registry's harness`)
  }
})

t.test('defineHarness refuses a meta whose parts are not those its index.ts gives', async (t) => {
  const facts = { id: 'x', name: 'X', kind: 'store', store: { envVars: [], root: () => '/nowhere' }, tools: manifest[0]!.tools } as const
  const sink = harnesses.find((h) => h.sink)!.sink!
  t.throws(() => defineHarness(defineMeta({ ...facts, parts: ['sink', 'read'] }), { sink }), { code: 'internal', message: /meta\.ts: parts names read, index\.ts does not give it/ })
  t.throws(() => defineHarness(defineMeta({ ...facts, parts: [] }), { sink }), { code: 'internal', message: /parts leaves out sink, index\.ts gives it/ })
  t.equal(defineHarness(defineMeta({ ...facts, parts: ['sink'] }), { sink }).sink, sink, 'parts that match: the harness')
})

/** The modules `from` imports when it loads (static imports of values; dynamic ones and types aside), transitively. */
function reached(from: string[]): Set<string> {
  const seen = new Set<string>()
  const visit = (f: string): void => {
    if (seen.has(f)) return
    seen.add(f)
    const src = readFileSync(join(ROOT, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
    for (const m of src.matchAll(/^\s*(?:import|export)\s+(?!type\s)([^'"]*?)\s*from\s*['"](\.[^'"]+)['"]/gm)) {
      const names = /^\{([^}]*)\}$/.exec(m[1]!.trim())?.[1]
      if (names !== undefined && names.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue
      visit(relative(ROOT, resolve(ROOT, dirname(f), m[2]!)).replace(/\.js$/, '.ts'))
    }
  }
  for (const f of from) visit(f)
  return seen
}

t.test('the parser, `search` and `ls` load no harness code, only the folders\' light files', async (t) => {
  // The parts index.ts adds to the meta: what a harness does, loaded by `load()` or the registry.
  const code = /^lib\/harness\/[^/]+\/(index|discover|source|sink|doctor|hooks|usage)\.ts$/
  for (const command of ['search', 'ls']) {
    const mods = [...reached(['lib/cli/main.ts', `lib/cli/commands/${command}.ts`])]
    t.same(mods.filter((f) => code.test(f)), [], `main.ts and commands/${command}.ts import no harness's index, discovery, reader, writer, doctor or hooks`)
    t.ok(mods.filter((f) => /^lib\/harness\/[^/]+\/meta\.ts$/.test(f)).length >= 5, `but every harness's meta.ts (${command})`)
    t.notOk(mods.includes('lib/harness/registry.ts'), `nor the registry (${command})`)
    t.ok(mods.includes('lib/harness/manifest.ts'), `the manifest instead (${command})`)
  }
})
