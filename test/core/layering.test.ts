/**
 * The architecture's rules, checked on the source tree (docs/architecture.md):
 * layers import downwards only, harness folders stand alone, no module is in
 * a runtime import cycle, and nothing outside lib/harness/ names a harness id
 * (so a new harness is one folder and one registry line).
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
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
  // The picker shows sessions as `show` renders them and continues them through the app layer: above both, below the CLI.
  if (path.startsWith('lib/pick/')) return { rank: 3.8, name: 'pick' }
  // The MCP server answers an agent as a command answers a person: it reads (archive, stores), renders (with
  // redaction) and continues, so it sits above render; the CLI starts it (`ferry mcp`), so below the CLI.
  if (path.startsWith('lib/mcp/')) return { rank: 3.7, name: 'mcp' }
  // Rendering redacts through the redact transform, so it sits between the CLI and the transforms.
  if (path.startsWith('lib/render/')) return { rank: 3.5, name: 'render' }
  if (path.startsWith('transforms/')) return { rank: 3, name: 'transforms' }
  // Counting usage reads sessions through any harness's reader, the archive's too, as the archive jobs do.
  if (path.startsWith('lib/stats/')) return { rank: 2.6, name: 'stats' }
  // `ferry doctor` lists and reads every store through the registry, as stats does.
  if (path.startsWith('lib/doctor/')) return { rank: 2.6, name: 'doctor' }
  // Application services compose harnesses (and the archive): `continue`.
  if (path.startsWith('lib/app/')) return { rank: 2.7, name: 'app' }
  // The archive database sits below the harnesses (the archive harness is built on it); the jobs
  // that fill, search and export it read other harnesses through the registry, so they sit above.
  if (path.startsWith('lib/archive/store/')) return { rank: 1.5, name: 'archive store' }
  if (path.startsWith('lib/archive/')) return { rank: 2.5, name: 'archive' }
  if (path.startsWith('lib/harness/')) return { rank: 2, name: 'harness' }
  return { rank: 1, name: 'io/model' }
}

interface Import {
  target: string
  /** `import type`, `export type`, or every name marked `type`: erased by tsc, so not there at run time. */
  typeOnly: boolean
  /** `import('…')`: loaded when the code runs, after every module is evaluated. */
  dynamic: boolean
}

function imports(path: string): Import[] {
  const out: Import[] = []
  const at = (spec: string) => relative(ROOT, resolve(ROOT, dirname(path), spec)).replace(/\.js$/, '.ts')
  const src = code(path)
  // The clause holds names, braces, commas and `*` only, and no other statement's keyword: so an
  // `export type X = …` before an import is not read as part of it.
  for (const m of src.matchAll(/\b(import|export)\s+(type\s+)?((?:(?!\b(?:import|export)\b)[\w\s{},*$])*?)\s*from\s*['"](\.[^'"]+)['"]/g)) {
    const names = /^\{([^}]*)\}$/.exec(m[3]!.trim())?.[1]
    const allTyped = names !== undefined && names.split(',').map((s) => s.trim()).filter(Boolean).every((s) => /^type\s/.test(s))
    out.push({ target: at(m[4]!), typeOnly: Boolean(m[2]) || allTyped, dynamic: false })
  }
  for (const m of src.matchAll(/\bimport\s*['"](\.[^'"]+)['"]/g)) out.push({ target: at(m[1]!), typeOnly: false, dynamic: false })
  for (const m of src.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]/g)) out.push({ target: at(m[1]!), typeOnly: false, dynamic: true })
  return out
}

t.test('layers import downwards only: cli → pick → mcp → render → transforms → app → stats → archive → harness → archive store → io/model', async (t) => {
  const bad: string[] = []
  for (const f of sources) {
    const from = layer(f)
    for (const { target } of imports(f)) {
      const to = layer(target)
      if (to.rank > from.rank) bad.push(`${f} (${from.name}) imports ${target} (${to.name})`)
    }
  }
  t.same(bad, [], 'no upward import')
})

/** What a command module may export: its yargs command definition. */
const COMMAND_EXPORTS = new Set(['command', 'describe', 'builder', 'handler', 'aliases', 'deprecated'])
/** The one module under commands/ that makes commands rather than being one: a command per transform. */
const COMMAND_FACTORY = 'lib/cli/commands/transform-commands.ts'

/** The one module that imports the commands: their list, which main.ts and quick.ts (a plain line without the parser) load from; main.ts imports the factory. */
const COMMAND_LIST = 'lib/cli/command-modules.ts'

t.test('commands are leaves: only their list imports them, and they export their definition only', async (t) => {
  const bad: string[] = []
  for (const f of sources) {
    for (const { target } of imports(f)) if (target.startsWith('lib/cli/commands/') && f !== COMMAND_LIST && !(f === 'lib/cli/main.ts' && target === COMMAND_FACTORY)) bad.push(`${f} imports ${target}`)
    if (!f.startsWith('lib/cli/commands/') || f === COMMAND_FACTORY) continue
    for (const m of code(f).matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm))
      if (!COMMAND_EXPORTS.has(m[1]!)) bad.push(`${f} exports ${m[1]}`)
    if (/^export\s*(\{|\*)/m.test(code(f))) bad.push(`${f} re-exports`)
  }
  t.same(bad, [], 'shared helpers live in lib/cli/ modules named for what they are')
})

/** Shared by every harness folder: the family helpers and the contract's own files. */
const HARNESS_SHARED = ['lib/harness/types.ts', 'lib/harness/session-sink.ts', 'lib/harness/discovery-cache.ts']

t.test('harness folders stand alone', async (t) => {
  const bad: string[] = []
  for (const f of sources) {
    const m = /^lib\/harness\/([^/]+)\//.exec(f)
    if (!m) continue
    for (const { target } of imports(f)) {
      if (!target.startsWith('lib/harness/') || target.startsWith(`lib/harness/${m[1]}/`) || HARNESS_SHARED.includes(target)) continue
      // A folder may use the family helpers; the family itself may use no folder.
      if (target.startsWith('lib/harness/family/') && m[1] !== 'family') continue
      bad.push(`${f} imports ${target}`)
    }
  }
  t.same(bad, [], 'a harness folder imports only its own files, lib/harness/family/, types.ts, session-sink.ts, discovery-cache.ts and the layers below')
})

/** The one form of a harness folder (lib/harness/README.md): these files, each with its part of the contract. */
const FORM: Record<string, string[]> = {
  'index.ts': [],
  'meta.ts': ['meta'],
  'paths.ts': ['store'],
  'flags.ts': ['readFlags', 'writeFlags', 'ReadOpts', 'WriteOpts'],
  'discover.ts': ['discover', 'resolve'],
  'source.ts': ['read'],
  'sink.ts': ['sink'],
  'tools.ts': ['tools'],
  'README.md': [],
}
/** The interchange stream has no store to list (lib/harness/README.md). */
const FORM_EXCEPTIONS = new Set(['ferry/discover.ts discover'])

t.test('every harness folder has the one form, and its index.ts is one defineHarness of imported names', async (t) => {
  const folders = readdirSync(join(ROOT, 'lib/harness')).filter((d) => d !== 'family' && statSync(join(ROOT, 'lib/harness', d)).isDirectory())
  t.same(folders.sort(), harnesses.map((h) => h.id).sort(), 'one folder per registered harness')
  for (const dir of folders) {
    const missing: string[] = []
    for (const [file, names] of Object.entries(FORM)) {
      const path = join(ROOT, 'lib/harness', dir, file)
      if (!existsSync(path)) {
        missing.push(file)
        continue
      }
      const text = readFileSync(path, 'utf8')
      for (const name of names) {
        if (FORM_EXCEPTIONS.has(`${dir}/${file} ${name}`)) continue
        if (!new RegExp(`^export (?:async )?(?:function\\*? |const |type |interface )${name}\\b`, 'm').test(text)) missing.push(`${file}: ${name}`)
      }
    }
    t.same(missing, [], `${dir}: every file of the form, with its exports`)
    const index = code(`lib/harness/${dir}/index.ts`)
    t.notMatch(index, /=>|\bfunction\b/, `${dir}/index.ts has no functions`)
    t.equal(index.match(/defineHarness\(/g)?.length, 1, `${dir}/index.ts is one defineHarness call`)
  }
})

/**
 * Each elementary cycle of the graph, found as the shortest way from each of its modules back to
 * itself; a cycle is listed once (starting at its first module in sort order).
 */
function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>()
  for (const start of [...graph.keys()].sort()) {
    const back = new Map<string, string>()
    const queue = [start]
    let path: string[] | null = null
    while (queue.length && !path) {
      const at = queue.shift()!
      for (const next of graph.get(at) ?? []) {
        if (next === start) {
          path = [at]
          for (let p = at; p !== start; ) path.unshift((p = back.get(p)!))
          break
        }
        if (back.has(next)) continue
        back.set(next, at)
        queue.push(next)
      }
    }
    if (!path) continue
    const first = path.indexOf([...path].sort()[0]!)
    const cycle = [...path.slice(first), ...path.slice(0, first)]
    found.set(cycle.join(' '), cycle)
  }
  return [...found.values()]
}

t.test('no runtime import cycle in lib/ and transforms/', async (t) => {
  // Only what runs when a module is loaded: type-only imports are erased, and a dynamic import runs
  // after every module is evaluated. A cycle makes what a module sees at load time depend on which
  // of its members was loaded first (a class or constant not yet defined).
  const graph = new Map<string, string[]>()
  for (const f of sources) graph.set(f, [...new Set(imports(f).filter((i) => !i.typeOnly && !i.dynamic && sources.includes(i.target)).map((i) => i.target))])
  t.same(
    cycles(graph).map((c) => [...c, c[0]].join(' → ')),
    [],
    'no module imports itself through others',
  )
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
