#!/usr/bin/env node
// Bundles the compiled CLI (dist/lib/cli/main.js and everything it imports,
// dependencies included) into ES modules: dist/ferry.mjs, which bin/ferry.js
// loads, and the chunks it imports when a command runs (dist/ferry-*.mjs, one
// per command module plus the code they share). Node spends most of a short
// command's start resolving and linking ~200 separate modules; a few files
// halve the CPU time of every `ferry` invocation (0.30 s against 0.55 s for
// `ferry --version`, measured), and splitting them by command spares each
// command the compiling and running of the others' code (docs/performance.md,
// "Start-up"). The chunks sit next to dist/ferry.mjs, so `import.meta.url`
// resolves the same relative paths from any of them. The library entry
// (dist/lib/index.js) stays unbundled. Native addons stay external: they are
// loaded from node_modules at run time.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Packages whose code runs only when first used, not when ferry starts: each
 * import of one resolves to a stand-in that `require`s the package on the
 * first call (esbuild then wraps the package so its top-level code waits for
 * that call). What they cost at start: string-width (yargs's, cliui's and
 * wrap-ansi's) builds an Intl.Segmenter and a `\p{RGI_Emoji}` expression
 * when loaded (about 0.1 CPU-s together); better-sqlite3 loads its native
 * addon; chrono-node builds its parsers; toml-patch is 175 kB of source
 * (docs/performance.md, "Start-up"). `default`: the default export is a
 * function or class, forwarded through a Proxy; `named`: the functions our
 * code imports by name (another name is a build error: add it here).
 * `narrow`: string-width answers a string of one-column characters itself, so
 * printing help (yargs measures every cell) loads nothing; the build checks
 * that string-width gives each of those characters width 1.
 */
const NARROW = '\\x20-\\x7e\\u00a1-\\u00a8\\u00aa-\\u00ac\\u00af-\\u00ff\\u2010-\\u2027\\u2030-\\u203b\\u203d-\\u2048\\u204a-\\u205e\\u2190-\\u2193'
const LAZY = {
  'string-width': { default: true, narrow: true },
  'better-sqlite3': { default: true },
  picomatch: { default: true },
  'chrono-node/en': { named: ['parse'] },
  '@decimalturn/toml-patch': { named: ['parse', 'patch'] },
  'smol-toml': { named: ['parse'] },
  'jsonc-parser/lib/esm/main.js': { named: ['applyEdits', 'findNodeAtLocation', 'modify', 'parse', 'parseTree', 'printParseErrorCode'] },
}
const lazyPackages = {
  name: 'lazy-packages',
  setup(b) {
    const names = Object.keys(LAZY).map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, async (a) => {
      if (a.pluginData === 'lazy' || a.namespace === 'lazy') return undefined
      const real = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, importer: a.importer, pluginData: 'lazy' })
      if (real.errors.length) return { errors: real.errors }
      return { path: real.external ? a.path : real.path, namespace: 'lazy', pluginData: { spec: LAZY[a.path], external: real.external } }
    })
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, async (a) => {
      const { spec, external } = a.pluginData
      if (spec.narrow) {
        const width = (await import(pathToFileURL(a.path).href)).default
        for (const c of new RegExp(`[${NARROW}]`, 'g')[Symbol.matchAll](String.fromCharCode(...Array.from({ length: 0x2200 }, (_, i) => i)))) {
          if (width(c[0]) !== 1) throw new Error(`bundle: ${a.path} gives U+${c[0].charCodeAt(0).toString(16)} width ${width(c[0])}: take it out of NARROW`)
        }
      }
      const load = `let m; const real = () => { if (m === undefined) { const x = require(${JSON.stringify(a.path)}); m = x && x.__esModule && 'default' in x ? x.default : x; if (${!!spec.named}) m = x } return m }`
      const body = spec.narrow
        ? `const narrow = /^[${NARROW}]*$/\nexport default function stringWidth(s, o) { return typeof s === 'string' && narrow.test(s) ? s.length : real()(s, o) }`
        : spec.default
        ? 'export default new Proxy(function () {}, { apply: (_t, self, args) => Reflect.apply(real(), self, args), construct: (_t, args) => Reflect.construct(real(), args), get: (_t, k) => real()[k] })'
        : spec.named.map((n) => `export function ${n}(...args) { return real().${n}(...args) }`).join('\n')
      return { contents: `${load}\n${body}\n`, loader: 'js', resolveDir: external ? root : dirname(a.path) }
    })
  },
}
/**
 * Harness code in two lazy chunks. lib/harness/manifest.ts imports each harness's index.js on first use; esbuild
 * makes every such import an entry of its own and splits the code they share into a chunk per set of harnesses
 * (98 files, slower to open than to compile). Here each of those imports resolves to one module that re-exports
 * every harness, except a harness that holds copies of the others (the archive): `ls --archive`, `cat --archive`
 * and `stats --archive` load it alone, so it keeps its own entry. `ferry search` loads neither.
 * Measured (docs/performance.md, "Harness facts apart from harness code (issue #49)"): one entry per harness,
 * all in one, and this; this was the fastest for `search` and `ls --archive` and as fast for the rest.
 */
const harnessDir = join(root, 'dist/lib/harness')
const { manifest } = await import(pathToFileURL(join(harnessDir, 'manifest.js')).href)
const alone = new Set(manifest.filter((h) => h.holdsCopies).map((h) => `./${h.id}/index.js`))
const harnessChunk = {
  name: 'harness-chunk',
  setup(b) {
    b.onResolve({ filter: /^\.\/[^/]+\/index\.js$/ }, (a) => {
      if (a.kind !== 'dynamic-import' || a.importer !== join(harnessDir, 'manifest.js') || alone.has(a.path)) return undefined
      return { path: join(harnessDir, 'harnesses'), namespace: 'harness-chunk' }
    })
    b.onLoad({ filter: /.*/, namespace: 'harness-chunk' }, () => ({
      contents: manifest.filter((h) => !alone.has(`./${h.id}/index.js`)).map((h) => `export * from './${h.id}/index.js'`).join('\n'),
      resolveDir: harnessDir,
      loader: 'js',
    }))
  },
}
const dist = join(root, 'dist')
const ours = (f) => f === 'ferry.mjs' || /^ferry-.*\.mjs$/.test(f)
const built = await build({
  // The quick entry runs a plain line of a short command without the parser (lib/cli/quick.ts); the chunks are shared.
  entryPoints: { ferry: join(root, 'dist/lib/cli/main.js'), 'ferry-quick': join(root, 'dist/lib/cli/quick.js') },
  outdir: dist,
  splitting: true,
  chunkNames: 'ferry-[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  plugins: [lazyPackages, harnessChunk],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Ink and React (the picker's) load from node_modules when `ferry pick` starts: no other command parses them.
  external: ['better-sqlite3', '@duckdb/node-api', 'ink', 'react'],
  // jsonc-parser's main entry is a UMD build whose require() calls esbuild cannot follow; its ES build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // CommonJS dependencies inside an ES module bundle still call require() and
  // read __filename/__dirname.
  banner: {
    js: [
      "import { createRequire as __ferryRequire } from 'node:module';",
      "import { fileURLToPath as __ferryPath } from 'node:url';",
      "import { dirname as __ferryDir } from 'node:path';",
      'const require = __ferryRequire(import.meta.url);',
      'const __ferryFilename = __ferryPath(import.meta.url);',
      'const __ferryDirname = __ferryDir(__ferryFilename);',
    ].join(' '),
  },
  // Only free (undeclared) uses are replaced; a module's own __dirname stays its own.
  define: { __filename: '__ferryFilename', __dirname: '__ferryDirname' },
  logLevel: 'warning',
  legalComments: 'none',
  // A quarter smaller (1.3 against 1.7 MB): less source for every process and thread to parse and hold.
  // Names stay, so a stack trace in a bug report still reads.
  minifyWhitespace: true,
  // Non-ASCII escaped: V8 keeps an all-ASCII source as one byte a character, half the memory of the two-byte copy
  // a single other character forces (2.6 MB of heap in every process and thread).
  charset: 'ascii',
  metafile: true,
})
// Chunk names carry a hash of their content: the last build's are removed after this one is written, not before (a CLI
// started meanwhile still finds the chunks it imports).
const outputs = new Set(Object.keys(built.metafile.outputs).map((o) => basename(o)))
for (const f of readdirSync(dist)) if (ours(f) && !outputs.has(f)) rmSync(join(dist, f))

// esbuild leaves non-ASCII characters in regular expression literals (three, in chrono-node and
// markdown-it); `\uXXXX` means the same there. An astral character would need the `u` flag: refuse it.
for (const f of readdirSync(dist).filter(ours)) {
  const out = join(dist, f)
  const code = readFileSync(out, 'utf8')
  if (!/[^\x00-\x7f]/.test(code)) continue
  if (/[\ud800-\udfff]/.test(code)) throw new Error(`bundle: a character outside the BMP is left unescaped in ${f}`)
  writeFileSync(out, code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
}

// The help texts at the usual widths, for bin/ferry.js to print without starting the parser (lib/cli/help-text.ts).
const { HELP_WIDTHS, helpTexts } = await import(pathToFileURL(join(dist, 'lib/cli/help-text.js')).href)
for (const w of HELP_WIDTHS) writeFileSync(join(dist, `help-${w}.json`), JSON.stringify(await helpTexts(w)))

// The quick commands' options as the parser holds them, for bin/ferry.js to parse a plain line of one without it (lib/cli/quick-spec.ts).
const { quickSpecs } = await import(pathToFileURL(join(dist, 'lib/cli/quick-spec.js')).href)
writeFileSync(join(dist, 'quick-argv.json'), JSON.stringify(await quickSpecs()))
