/**
 * The options tables of docs/transforms.md are rendered from the schemas
 * (library key, CLI flag, type, default, meaning of every option): this test
 * fails when the file and the schemas disagree. `FERRY_UPDATE_DOCS=1` rewrites
 * the tables.
 */
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { flagOf, type Option, type OptionSchema } from '../../transforms/spec.js'
import { cliTransforms, commandSchema, type CliTransform } from '../../lib/cli/transforms.js'
import { ROOT } from '../kit.js'

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function typeOf(o: Option): string {
  if (o.type === 'string' || o.type === 'list') {
    if (typeof o.choices === 'function') return o.type === 'list' ? 'list of harness ids' : 'a harness id (from the registry)'
    if (o.choices) return (o.type === 'list' ? 'list of ' : '') + o.choices.map((c) => `\`${c}\``).join(' \\| ')
    return o.type === 'list' ? 'list (comma separated on the CLI)' : 'string'
  }
  return o.type
}

function row(key: string | null, flagKey: string, o: Option): string {
  const flag = o.type === 'boolean' && o.default === true ? `\`--no-${flagOf(flagKey, o)}\`` : `\`--${flagOf(flagKey, o)}\``
  const def = 'default' in o && o.default !== undefined ? `\`${String(o.default)}\`` : ''
  return `| ${key === null ? '(CLI only)' : `\`${key}\``} | ${flag} | ${typeOf(o)} | ${def} | ${cell(o.describe)} |`
}

function optionsTable(t: CliTransform): string {
  const lines = ['| Library option | CLI flag | Type | Default | Meaning |', '| --- | --- | --- | --- | --- |']
  const lib: OptionSchema = t.spec.options
  for (const [key, o] of Object.entries(lib)) lines.push(row(key, key, o))
  for (const [key, o] of Object.entries(commandSchema(t))) if (!(key in lib)) lines.push(row(null, key, o))
  return lines.join('\n')
}

const BLOCK = /<!-- options: ([a-z-]+) -->\n[\s\S]*?<!-- \/options -->/g

/** `md` with every `<!-- options: NAME -->…<!-- /options -->` block rendered from the schemas. */
function renderOptionTables(md: string, transforms: CliTransform[]): string {
  return md.replace(BLOCK, (_m, name: string) => {
    const t = transforms.find((x) => x.name === name)
    if (!t) throw new Error(`docs: no transform named ${name}`)
    return `<!-- options: ${name} -->\n${optionsTable(t)}\n<!-- /options -->`
  })
}

const DOC = join(ROOT, 'docs', 'transforms.md')

t.test('docs/transforms.md option tables match the schemas', async (t) => {
  const transforms = cliTransforms()
  const md = readFileSync(DOC, 'utf8')
  const want = renderOptionTables(md, transforms)
  if (process.env.FERRY_UPDATE_DOCS === '1' && want !== md) writeFileSync(DOC, want)
  for (const x of transforms) t.match(md, `<!-- options: ${x.name} -->`, `${x.name} has an options table`)
  t.equal(md, want, 'tables are current (FERRY_UPDATE_DOCS=1 node test/run.mjs test/transforms/docs.test.ts rewrites them)')
})

t.test('a changed schema makes the tables disagree', async (t) => {
  const transforms = cliTransforms()
  const md = renderOptionTables(readFileSync(DOC, 'utf8'), transforms)
  const truncate = transforms.find((x) => x.name === 'truncate')!
  const changed = { ...truncate, spec: { ...truncate.spec, options: { ...truncate.spec.options, toolOutput: { type: 'number', describe: 'something else' } } } } as CliTransform
  t.not(renderOptionTables(md, transforms.map((x) => (x === truncate ? changed : x))), md)
})
