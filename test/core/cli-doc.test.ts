// docs/cli.md is the CLI contract: its generated half must be what --help prints now.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { DOC, MARKER, documentedCommands, generated, spliced } from '../../lib/cli/help-doc.js'
import { fileTimeout } from '../kit.js'

fileTimeout(t, 10 * 60_000)

t.test('docs/cli.md matches --help of every command (npm run docs:cli rewrites it)', async (t) => {
  const doc = readFileSync(DOC, 'utf8')
  t.ok(doc.includes(MARKER), 'the generated part is marked')
  const now = await generated()
  t.equal(spliced(doc, now), doc, 'docs/cli.md is up to date with --help')
  for (const c of documentedCommands()) t.match(doc, `### ferry ${c}\n`, `${c} is documented`)
  for (const word of ['Exit codes', 'JSON', 'Environment variables', '--out', 'completion']) t.match(doc, word)
})
