/**
 * The oracle of the redaction speed comparison (issue 48): a redactor that
 * knows where the secrets are. It reads the corpus text on stdin and, from
 * the file named by its argument, the planted secret values of each snippet
 * (one JSON array per line), and writes the text with every occurrence of
 * those values replaced by a label — what a perfect detector costs when
 * finding costs nothing but the replacement itself. `ferry redact --text` is
 * measured against it on the same bytes.
 */
import { readFileSync } from 'node:fs'

const SEPARATOR = '\n==== ferry corpus snippet ====\n'
const planted = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
const chunks = []
for await (const c of process.stdin) chunks.push(c)
const snippets = Buffer.concat(chunks).toString('utf8').split(SEPARATOR)
let n = 0
const out = snippets.map((s, i) => {
  for (const v of planted[i] ?? []) if (s.includes(v)) s = s.split(v).join(`[REDACTED:oracle:${++n}]`)
  return s
})
process.stdout.write(out.join(SEPARATOR))
