/** The README's error-code table is the code list, entry for entry. */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../kit.js'

const { CODES } = (await import(join(ROOT, 'dist/lib/codes.js'))) as { CODES: Record<string, string> }

t.test('README documents every code, and only those', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Errors, diagnostics'), readme.indexOf('**Sink policy**'))
  const documented = [...section.matchAll(/^\| `([a-z-]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]!.replace(/\\\|/g, '|')])
  t.same(Object.fromEntries(documented), CODES)
})
