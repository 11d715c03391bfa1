/**
 * Model prices: the pinned table (`price-table.ts`), overridden by a `--prices FILE` of the same
 * shape, and the lookup from a model name as agents record it (`anthropic/claude-sonnet-4-5`,
 * `claude-sonnet-4-5-20250929`) to an entry. No network: a model not found has no price.
 */
import { readFileSync } from 'node:fs'
import { FerryError, errorMessage } from '../errors.js'
import { isObj, type Usage } from '../model.js'
import { PINNED_PRICES, type ModelPrice, type PriceTable } from './price-table.js'

export type { ModelPrice, PriceTable } from './price-table.js'

/** What may follow a table key in a recorded name and still be the same model: a release date, `-latest`. */
const SAME_MODEL_SUFFIX = /^(?:[-@]\d{4}-?\d{2}-?\d{2}|-latest)$/

export class Prices {
  readonly date: string
  private readonly models: Map<string, ModelPrice>
  private readonly keys: string[]
  private readonly found = new Map<string, ModelPrice | null>()

  constructor(table: PriceTable = PINNED_PRICES, overrides?: PriceTable) {
    this.models = new Map(Object.entries(table.models).map(([k, v]) => [k.toLowerCase(), v]))
    for (const [k, v] of Object.entries(overrides?.models ?? {})) this.models.set(k.toLowerCase(), v)
    this.date = overrides?.date ? `${overrides.date} (--prices), ${table.date}` : table.date
    // Longest first, so `gpt-5-mini-2025-08-07` finds `gpt-5-mini` before `gpt-5`.
    this.keys = [...this.models.keys()].sort((a, b) => b.length - a.length)
  }

  /** The price of a model as an agent recorded its name, or null when the table has none. */
  lookup(model: string): ModelPrice | null {
    let p = this.found.get(model)
    if (p === undefined) {
      p = this.find(model.toLowerCase())
      this.found.set(model, p)
    }
    return p
  }

  private find(name: string): ModelPrice | null {
    // A provider prefix (`anthropic/…`, `openrouter/openai/…`) is not part of the model's name.
    for (const n of [name, name.slice(name.lastIndexOf('/') + 1)]) {
      const exact = this.models.get(n)
      if (exact) return exact
      for (const k of this.keys) if (n.startsWith(k) && SAME_MODEL_SUFFIX.test(n.slice(k.length))) return this.models.get(k)!
    }
    return null
  }
}

/** The cost of one usage at a price, in dollars. A cache price the table lacks is charged at the input price. */
export function costOf(u: Usage, p: ModelPrice): number {
  const cached = (n: number | undefined, price: number | undefined) => (n ?? 0) * (price ?? p.input)
  return ((u.input_tokens ?? 0) * p.input + (u.output_tokens ?? 0) * p.output + cached(u.cache_read_tokens, p.cache_read) + cached(u.cache_write_tokens, p.cache_write)) / 1e6
}

/** A `--prices FILE`: `{"date"?: "YYYY-MM-DD", "models": {"name": {"input": …, "output": …, "cache_read"?: …, "cache_write"?: …}}}`, dollars per million tokens. */
export function loadPriceFile(path: string): PriceTable {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new FerryError(`cannot read the price file: ${errorMessage(err)}`, { code: 'unreadable', position: { file: path } })
  }
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    throw new FerryError(`the price file is not JSON: ${errorMessage(err)}`, { code: 'bad-config', position: { file: path } })
  }
  const bad = (why: string) => new FerryError(`the price file ${why} (expected {"models": {"<model>": {"input": N, "output": N, "cache_read"?: N, "cache_write"?: N}}}, dollars per million tokens)`, { code: 'bad-config', position: { file: path } })
  if (!isObj(doc) || !isObj(doc.models)) throw bad('has no "models" object')
  const models: Record<string, ModelPrice> = {}
  for (const [name, v] of Object.entries(doc.models)) {
    if (!isObj(v)) throw bad(`gives no object for "${name}"`)
    const price: Partial<ModelPrice> = {}
    for (const f of ['input', 'output', 'cache_read', 'cache_write'] as const) {
      const n = v[f]
      if (n === undefined && (f === 'cache_read' || f === 'cache_write')) continue
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw bad(`gives "${name}" no valid "${f}"`)
      price[f] = n
    }
    models[name] = price as ModelPrice
  }
  return { date: typeof doc.date === 'string' ? doc.date : '', models }
}
