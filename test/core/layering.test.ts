/**
 * The architecture's two rules, checked on the source tree (docs/architecture.md):
 * layers import downwards only, and nothing outside lib/harness/ names a
 * harness id (so a new harness is one folder and one registry line).
 */
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../kit.js'

const { harnesses } = (await import(join(ROOT, 'dist/lib/harness/registry.js'))) as { harnesses: Array<{ id: string }> }

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p)
  }
  return out
}

const sources = [...files(join(ROOT, 'lib')), ...files(join(ROOT, 'transforms'))].map((p) => relative(ROOT, p))

/** Source text without comments (string contents are kept: they are what we look for). */
function code(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

/** The layer of a file: lower numbers may not import higher ones. */
function layer(path: string): { rank: number; name: string } {
  if (path.startsWith('lib/cli/') || path === 'lib/index.ts') return { rank: 4, name: 'cli' }
  // Rendering redacts through the redact transform, so it sits between the CLI and the transforms.
  if (path.startsWith('lib/render/')) return { rank: 3.5, name: 'render' }
  if (path.startsWith('transforms/')) return { rank: 3, name: 'transforms' }
  if (path.startsWith('lib/harness/') || path === 'lib/refs.ts') return { rank: 2, name: 'harness' }
  return { rank: 1, name: 'io/model' }
}

function imports(path: string): string[] {
  const out: string[] = []
  for (const m of code(path).matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]/g)) {
    const spec = (m[1] ?? m[2])!
    out.push(relative(ROOT, resolve(ROOT, dirname(path), spec)).replace(/\.js$/, '.ts'))
  }
  return out
}

t.test('layers import downwards only: cli → render → transforms → harness → io/model', async (t) => {
  const bad: string[] = []
  for (const f of sources) {
    const from = layer(f)
    for (const target of imports(f)) {
      const to = layer(target)
      if (to.rank > from.rank) bad.push(`${f} (${from.name}) imports ${target} (${to.name})`)
    }
  }
  t.same(bad, [], 'no upward import')
})

t.test('harness folders do not import each other', async (t) => {
  const bad: string[] = []
  for (const f of sources) {
    const m = /^lib\/harness\/([^/]+)\//.exec(f)
    if (!m) continue
    for (const target of imports(f)) {
      const n = /^lib\/harness\/([^/]+)\//.exec(target)
      if (n && n[1] !== m[1]) bad.push(`${f} imports ${target}`)
    }
  }
  t.same(bad, [], 'each harness folder stands alone')
})

t.test('no harness id is named outside lib/harness/', async (t) => {
  const ids = harnesses.map((h) => h.id)
  t.ok(ids.length >= 5, 'the registry lists the harnesses')
  const pattern = new RegExp(`(['"\`])(${ids.map((i) => i.replace(/[-]/g, '\\-')).join('|')})\\1`)
  const bad: string[] = []
  for (const f of sources) {
    if (f.startsWith('lib/harness/')) continue
    code(f)
      .split('\n')
      .forEach((line, i) => {
        // The program's own name is not the interchange harness's id.
        if (/scriptName\(/.test(line)) return
        // A property name in a type (`Omit<SessionRec, 'ferry'>`: the format-version field).
        if (/\b(Omit|Pick)</.test(line)) return
        if (pattern.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`)
      })
  }
  t.same(bad, [], 'ids come from the registry')
})
