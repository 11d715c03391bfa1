/**
 * The redaction evaluation corpus, generated at test/bench time from a seed
 * (never stored): secrets of SECRET_KINDS planted in transcript-shaped
 * contexts, look-alikes of LOOKALIKE_KINDS next to them, each snippet at an
 * escaping depth 0–3:
 *   0 plain tool output;
 *   1 a JSONL line holding it as a JSON string (a Claude Code tool_result);
 *   2 a JSON string inside a JSON string (a Codex function_call `arguments`);
 *   3 once more (a tool_result that printed such a Codex line).
 *
 * Splits: `HELD_OUT_SEED` is the held-out split. Rules are never tuned on it;
 * only `npm run bench` reads it. Tests and rule work use DEV_SEEDS.
 * Plain JavaScript, outside lib/, so the bench runs it without a build and it
 * does not ship.
 */
import { Rng, AN } from './rng.mjs'
import { SECRETS, SECRET_KINDS } from './secrets.mjs'
import { LOOKALIKES, LOOKALIKE_KINDS } from './lookalikes.mjs'
import { BARE, FILLER, HEADER, NAMED, URL } from './contexts.mjs'

export { SECRET_KINDS, LOOKALIKE_KINDS }
export const HELD_OUT_SEED = 0x5eed0019
export const DEV_SEEDS = [11, 12, 13]

const NEUTRAL_NAMES = ['VALUE', 'CONFIG_ITEM', 'UPSTREAM_CREDENTIAL', 'SERVICE_AUTH', 'TOKEN', 'API_KEY', 'SECRET']

/** JSON string escaping applied `d` times (what the text looks like at depth d). */
export function escapeDepth(s, d) {
  for (let i = 0; i < d; i++) s = JSON.stringify(s).slice(1, -1)
  return s
}

function wrap(r, text, depth) {
  if (depth === 0) return text
  const claude = (content) => JSON.stringify({ parentUuid: null, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01' + r.str(AN, 22), content }] }, timestamp: '2026-11-02T09:15:00.000Z' })
  const codex = (cmd) => JSON.stringify({ timestamp: '2026-11-02T09:15:00.000Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', cmd], workdir: '/home/dev/app' }), call_id: 'call_' + r.str(AN, 24) } })
  if (depth === 1) return claude(text)
  if (depth === 2) return codex(text)
  return claude(codex(text))
}

function plant(r, kind) {
  const def = SECRETS[kind]
  const made = def.make(r)
  const value = typeof made === 'string' ? made : made.value
  const secret = typeof made === 'string' ? made : made.secret
  switch (def.cls) {
    case 'config':
      return { text: made.text, secret, context: made.context }
    case 'named': {
      const [ctx, fn] = r.pick(Object.entries(NAMED))
      return { text: fn(r, r.pick(def.names), value), secret, context: ctx }
    }
    case 'url': {
      const [ctx, fn] = r.pick(Object.entries(URL))
      return { text: fn(r, value), secret, context: ctx }
    }
    case 'bearer':
    case 'basic': {
      const [ctx, fn] = r.pick(Object.entries(HEADER))
      return { text: fn(r, def.cls === 'bearer' ? r.pick(['Bearer', 'bearer']) : 'Basic', value), secret, context: ctx }
    }
    default: {
      // Multi-line keys go where multi-line text goes.
      if (value.includes('\n')) {
        const ctx = r.pick(['cat-file', 'json-field', 'yaml-block'])
        const text = ctx === 'cat-file' ? `$ cat ~/.ssh/id_deploy\n${value}` : ctx === 'json-field' ? JSON.stringify({ name: 'deploy', private_key: value }) : `deploy_key: |\n  ${value.split('\n').join('\n  ')}`
        return { text, secret: ctx === 'json-field' ? value.split('\n')[1] : secret, context: ctx }
      }
      if (r.chance(0.55)) {
        const [ctx, fn] = r.pick(Object.entries(NAMED))
        return { text: fn(r, r.pick(NEUTRAL_NAMES.concat([kind.toUpperCase()])), value), secret, context: ctx }
      }
      const [ctx, fn] = r.pick(Object.entries(BARE))
      return { text: fn(r, value), secret, context: ctx }
    }
  }
}

function snippet(r, kind, depth) {
  const p = plant(r, kind)
  const looks = []
  const parts = [r.pick(FILLER)]
  parts.push(p.text)
  for (let k = 0; k < 2; k++) {
    const lk = r.pick(LOOKALIKE_KINDS)
    const made = LOOKALIKES[lk](r)
    looks.push({ kind: lk, value: made.value })
    parts.push(made.text)
  }
  parts.push(r.pick(FILLER))
  // The secret's own snippet order is shuffled a little so it is not always second.
  if (r.chance(0.5)) [parts[1], parts[2]] = [parts[2], parts[1]]
  const text = wrap(r, parts.join(r.pick(['\n', '\n\n'])), depth)
  return {
    text,
    depth,
    context: p.context,
    secrets: [{ kind, value: escapeDepth(p.secret, depth) }],
    lookalikes: looks.map((l) => ({ kind: l.kind, value: escapeDepth(l.value, depth) })),
  }
}

const DEPTHS = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3]

/** `count` snippets cycling through every secret kind; over half are JSON-escaped. */
export function generate(count, seed) {
  const r = new Rng(seed)
  const out = []
  for (let i = 0; i < count; i++) out.push(snippet(r, SECRET_KINDS[i % SECRET_KINDS.length], r.pick(DEPTHS)))
  return out
}

/** A secret is caught when no 8-character run of it survives (runs that also occur around it prove nothing). */
export function survives(secret, output, background = '') {
  // Labels name their kind (`[REDACTED:rubygems-token:1]`): not a surviving piece of the secret.
  if (output.includes('[REDACTED:')) output = output.replace(/\[REDACTED:[a-z0-9\-]+:\d+\]/g, '')
  for (let i = 0; i + 8 <= secret.length; i++) {
    const run = secret.slice(i, i + 8)
    if (output.includes(run) && !background.includes(run)) return true
  }
  return false
}

const bump = (m, k, hit) => {
  const e = (m[k] ??= { n: 0, ok: 0 })
  e.n++
  if (hit) e.ok++
}

/** Scores outputs against snippets: totals and recall per kind, per context, per depth. */
export function score(snips, outputs) {
  const s = { secrets: 0, caught: 0, lookalikes: 0, kept: 0, byKind: {}, byContext: {}, byDepth: {}, byLookalike: {}, missed: [] }
  snips.forEach((sn, i) => {
    const out = outputs[i]
    for (const p of sn.secrets) {
      s.secrets++
      const hit = !survives(p.value, out, sn.text.split(p.value).join(''))
      if (hit) s.caught++
      else if (s.missed.length < 200) s.missed.push({ kind: p.kind, context: sn.context, depth: sn.depth, i })
      bump(s.byKind, p.kind, hit)
      bump(s.byContext, sn.context, hit)
      bump(s.byDepth, sn.depth, hit)
    }
    for (const l of sn.lookalikes) {
      s.lookalikes++
      const kept = out.includes(l.value)
      if (kept) s.kept++
      bump(s.byLookalike, l.kind, kept)
    }
  })
  s.recall = s.caught / s.secrets
  s.keptRate = s.kept / s.lookalikes
  return s
}

/** The rows of a score table below 100%, worst first: `name ok/n`. */
export function weakest(m, limit = 20) {
  return Object.entries(m)
    .filter(([, e]) => e.ok < e.n)
    .sort((a, b) => a[1].ok / a[1].n - b[1].ok / b[1].n)
    .slice(0, limit)
    .map(([k, e]) => `${k} ${e.ok}/${e.n}`)
}

/** Separator for one text holding many snippets (`redact --text` over the corpus): nothing in it looks like a secret. */
export const SEPARATOR = '\n==== ferry corpus snippet ====\n'
