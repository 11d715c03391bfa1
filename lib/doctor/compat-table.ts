/**
 * The compatibility table of docs/formats/README.md, made from the same data `ferry doctor` uses
 * (each harness's `doctor`): `npm run docs:formats` rewrites it, a test compares it.
 */
import { doctorHarnesses } from './check.js'

export const BEGIN = '<!-- compat: generated from lib/harness/*/doctor.ts by `npm run docs:formats`; a test compares it. -->'
export const END = '<!-- /compat -->'

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

export function compatTable(): string {
  const rows = doctorHarnesses().map((h) => {
    const d = h.doctor!
    const versions = d.verified.versions.length ? d.verified.versions.map((v) => `${d.verified.client} ${v}`).join(', ') : `none (${d.verified.how})`
    return `| ${cell(h.name)} (\`${h.id}\`) | ${cell(versions)} | ${d.verified.date} | ${d.notCovered.length ? cell(d.notCovered.join('; ')) : '—'} |`
  })
  return ['| Agent | Versions verified | Date | Known not covered |', '| --- | --- | --- | --- |', ...rows].join('\n')
}

/** The README with its table replaced (added at the end when the markers are missing). */
export function splicedCompat(doc: string, table: string): string {
  const a = doc.indexOf(BEGIN)
  const b = doc.indexOf(END)
  if (a === -1 || b === -1) return `${doc.trimEnd()}\n\n${BEGIN}\n${table}\n${END}\n`
  return `${doc.slice(0, a)}${BEGIN}\n${table}\n${doc.slice(b)}`
}

/** The `Last verified:` line a format doc must have for this data (its start; the doc may add more after it). */
export function lastVerifiedOk(line: string, d: { client: string; versions: readonly string[]; date: string }): boolean {
  if (!line.startsWith(`Last verified: ${d.date}`)) return false
  return d.versions.every((v) => line.includes(v))
}
