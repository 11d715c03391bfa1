/**
 * How the discovery cache (discovery-cache.ts) stores its values, a session's metadata (objects of strings and
 * numbers, an object or two deep), so that loading ten thousand of them is cheap: each value is a row of its
 * leaves under a shape that names the keys once for every value of that shape, the strings of a key whose
 * values recur (a cwd, a model, a version) are written once in a table and referred to by their index, and the
 * file's own path is not written at all. A value of any other form (an array, a number JSON cannot hold) is kept
 * whole, as JSON keeps it.
 */

/** A shape: the keys of an object in their order, a nested object as [key, its shape]. */
export type Shape = Array<string | [string, Shape]>

/**
 * Each leaf's kind, a base-4 digit of the row's kinds number (the first leaf the lowest): its value is in the row
 * (LITERAL), its index in the table is (TABLED), or it is the file's path and nothing is (PATH). At most
 * MAX_LEAVES digits fit in a number that JSON keeps exactly; a value with more leaves is kept whole.
 */
const LITERAL = 0
const TABLED = 1
const PATH = 2
const MAX_LEAVES = 26
/** Shape indexes that are no shape: a null value (no leaves), a value kept whole (one leaf, the path as PATH_MARK). */
const NULL_VALUE = -1
const WHOLE = -2
const PATH_MARK = '\u0000path'

type Leaf = string | number | boolean | null

/** A plain object (no arrays, no prototype but Object's) of JSON leaves and plain objects: what a shape can describe. */
function shapeable(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown
  if ((proto !== Object.prototype && proto !== null) || Array.isArray(v)) return false
  for (const k of Object.keys(v)) {
    if (k === '__proto__') return false
    const x = (v as Record<string, unknown>)[k]
    if (typeof x === 'number' ? !Number.isFinite(x) : typeof x === 'object' && x !== null ? !shapeable(x) : !(x === null || x === undefined || typeof x === 'string' || typeof x === 'boolean')) return false
  }
  return true
}

/** A copy of `v` with every string equal to `path` swapped for `to` (for values kept whole). */
export function swapPath<T>(v: T, path: string, to: string): T {
  if (v === path) return to as T
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) return v.map((x) => swapPath(x, path, to)) as T
  const o: Record<string, unknown> = {}
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k]
    const y = x === path ? to : typeof x === 'object' && x !== null ? swapPath(x, path, to) : x
    // An own `__proto__` (JSON.parse makes one) stays a key, as JSON keeps it.
    if (k === '__proto__') Object.defineProperty(o, k, { value: y, enumerable: true, writable: true, configurable: true })
    else o[k] = y
  }
  return o as T
}

/** The keys (with undefined ones left out, as JSON does) and leaves of a shapeable object, depth first. */
function flatten(v: Record<string, unknown>, keys: Shape, leaves: Leaf[]): void {
  for (const k of Object.keys(v)) {
    const x = v[k]
    if (x === undefined) continue
    if (typeof x === 'object' && x !== null) {
      const sub: Shape = []
      keys.push([k, sub])
      flatten(x as Record<string, unknown>, sub, leaves)
    } else {
      keys.push(k)
      leaves.push(x as Leaf)
    }
  }
}

function sameShape(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (typeof x === 'string' ? x !== y : typeof y === 'string' || x[0] !== y[0] || !sameShape(x[1], y[1])) return false
  }
  return true
}

/** The names of a shape's leaves, depth first (a nested one as `outer.inner`). */
function leafNames(shape: Shape, prefix = '', out: string[] = []): string[] {
  for (const k of shape) {
    if (typeof k === 'string') out.push(prefix + k)
    else leafNames(k[1], `${prefix}${k[0]}.`, out)
  }
  return out
}

/** Values looked at to choose the keys whose strings go in the table. */
const SAMPLE = 256

/**
 * Encodes `values` (each with the path of its file): appends to `rows[i]` value i's shape index, its leaves'
 * kinds and its leaves. Returns the shapes and the table the rows refer to. Strings go in the table by key: a
 * key whose strings repeat in the first values (a cwd, a model, a version: at most half of them different) has
 * all its strings there; looking each string up would cost more than it saves on reading.
 */
export function encodeValues(values: ReadonlyArray<{ value: unknown; path: string }>, rows: unknown[][]): { shapes: Shape[]; table: string[] } {
  const shapes: Shape[] = []
  const shapeIndex = new Map<string, number>()
  let last: { keys: Shape; index: number } | undefined
  type Flat = { shape: number; leaves: Leaf[]; path: string } | { whole: unknown } | null
  const flat = values.map(({ value, path }): Flat => {
    if (value === null) return null
    if (typeof value !== 'object' || !shapeable(value)) return { whole: swapPath(value, path, PATH_MARK) }
    const keys: Shape = []
    const leaves: Leaf[] = []
    flatten(value as Record<string, unknown>, keys, leaves)
    if (leaves.length > MAX_LEAVES) return { whole: swapPath(value, path, PATH_MARK) }
    // Values in a row mostly have the keys of the one before: compared first, before a signature is made.
    if (!last || !sameShape(keys, last.keys)) {
      const sig = JSON.stringify(keys)
      let index = shapeIndex.get(sig)
      if (index === undefined) shapeIndex.set(sig, (index = shapes.push(keys) - 1))
      last = { keys, index }
    }
    return { shape: last.index, leaves, path }
  })
  const names = shapes.map((s) => leafNames(s))
  // Which keys' strings repeat, from the first values.
  const distinct = new Map<string, Set<string>>()
  const counts = new Map<string, number>()
  let sampled = 0
  for (const f of flat) {
    if (sampled >= SAMPLE) break
    if (!f || !('shape' in f)) continue
    sampled++
    names[f.shape]!.forEach((name, i) => {
      const x = f.leaves[i]
      if (typeof x !== 'string' || x === f.path) return
      counts.set(name, (counts.get(name) ?? 0) + 1)
      let d = distinct.get(name)
      if (!d) distinct.set(name, (d = new Set()))
      d.add(x)
    })
  }
  const tabledKeys = new Set([...counts].filter(([name, n]) => n >= 4 && distinct.get(name)!.size * 2 <= n).map(([name]) => name))
  const tabledLeaf = names.map((ns) => ns.map((n) => tabledKeys.has(n)))
  const table: string[] = []
  const index = new Map<string, number>()
  flat.forEach((f, i) => {
    const row = rows[i]!
    if (f === null) return void row.push(NULL_VALUE)
    if ('whole' in f) return void row.push(WHOLE, f.whole)
    const at = row.push(f.shape, 0) - 1
    const tabled = tabledLeaf[f.shape]!
    let kinds = 0
    let digit = 1
    f.leaves.forEach((x, j) => {
      if (x === f.path) kinds += PATH * digit
      else if (typeof x === 'string' && tabled[j]) {
        let t = index.get(x)
        if (t === undefined) index.set(x, (t = table.push(x) - 1))
        kinds += TABLED * digit
        row.push(t)
      } else row.push(x)
      digit *= 4
    })
    row[at] = kinds
  })
  return { shapes, table }
}

interface Compiled {
  names: string[]
  /** Per key: its nested object's shape, or undefined for a leaf. */
  subs: Array<Compiled | undefined>
}

/** Thrown (and caught by the cache, which then reads the file) for a row that does not fit its shape. */
class Damaged extends Error {}

function compile(s: unknown): Compiled {
  if (!Array.isArray(s)) throw new Damaged('shape')
  const c: Compiled = { names: [], subs: [] }
  for (const k of s as unknown[]) {
    const nested = Array.isArray(k) && k.length === 2
    const name: unknown = nested ? k[0] : k
    if (typeof name !== 'string' || name === '__proto__') throw new Damaged('shape')
    c.names.push(name)
    c.subs.push(nested ? compile(k[1]) : undefined)
  }
  return c
}

/** Values back from rows, with the shapes and the table of the file they came from. */
export class ValueReader {
  private readonly shapes: Compiled[]
  private readonly table: string[]
  /** While a row is read: the next leaf's index, and the kinds of the leaves still to come. */
  private at = 0
  private kinds = 0

  /** Throws when `shapes` or `table` is not what encodeValues gives. */
  constructor(shapes: unknown, table: unknown) {
    if (!Array.isArray(shapes) || !Array.isArray(table) || !table.every((s) => typeof s === 'string')) throw new Damaged('cache')
    this.shapes = shapes.map(compile)
    this.table = table as string[]
  }

  /** The value in `row` from index `at` (a new object each call), or undefined when the row does not fit its shape. */
  value(row: readonly unknown[], at: number, path: string): unknown {
    const si = row[at]
    if (si === NULL_VALUE) return row.length === at + 1 ? null : undefined
    if (si === WHOLE) return row.length === at + 2 ? swapPath(row[at + 1], PATH_MARK, path) : undefined
    const c = typeof si === 'number' ? this.shapes[si] : undefined
    const kinds = row[at + 1]
    if (!c || typeof kinds !== 'number' || !Number.isSafeInteger(kinds) || kinds < 0) return undefined
    this.at = at + 2
    this.kinds = kinds
    try {
      const v = this.build(c, row, path)
      return this.at === row.length && this.kinds === 0 ? v : undefined
    } catch (err) {
      if (err instanceof Damaged) return undefined
      throw err
    }
  }

  private build(c: Compiled, row: readonly unknown[], path: string): Record<string, unknown> {
    const o: Record<string, unknown> = {}
    const { names, subs } = c
    for (let k = 0; k < names.length; k++) {
      const sub = subs[k]
      if (sub) {
        o[names[k]!] = this.build(sub, row, path)
        continue
      }
      const kind = this.kinds % 4
      this.kinds = (this.kinds - kind) / 4
      if (kind === PATH) {
        o[names[k]!] = path
        continue
      }
      if (this.at >= row.length) throw new Damaged('leaf')
      const x = row[this.at++]
      if (kind === TABLED) {
        const s = typeof x === 'number' ? this.table[x] : undefined
        if (s === undefined) throw new Damaged('leaf')
        o[names[k]!] = s
      } else if (kind === LITERAL && (typeof x !== 'object' || x === null)) o[names[k]!] = x
      else throw new Damaged('leaf')
    }
    return o
  }
}

/** JSON text with every character past U+007F escaped, so the file is ASCII and reads as latin1 into a one-byte string. */
export function asciiJson(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
