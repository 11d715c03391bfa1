/**
 * How the discovery cache (discovery-cache.ts) stores its values, a session's metadata (objects of strings and
 * numbers, an object or two deep), so that loading ten thousand of them is cheap: each value is a row of its
 * leaves under a shape that names the keys once for every value of that shape, a string that recurs (a cwd, a
 * model, a version) is written once in a table and referred to by its index, and the file's own path is not
 * written at all. A value of any other form (an array, a number JSON cannot hold) is kept whole, as JSON keeps it.
 */

/**
 * A shape: the keys of an object in their order, each leaf key led by its kind (LITERAL: the leaf is in the row;
 * TABLED: the row holds its index in the table; PATH: the value is the file's path, nothing is in the row) and a
 * nested object as [key, its shape].
 */
export type Shape = Array<string | [string, Shape]>

const LITERAL = '.'
const TABLED = '*'
const PATH = '/'
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
function flatten(v: Record<string, unknown>, keys: Array<string | [string, unknown[]]>, leaves: Leaf[]): void {
  for (const k of Object.keys(v)) {
    const x = v[k]
    if (x === undefined) continue
    if (typeof x === 'object' && x !== null) {
      const sub: Array<string | [string, unknown[]]> = []
      keys.push([k, sub])
      flatten(x as Record<string, unknown>, sub, leaves)
    } else {
      keys.push(k)
      leaves.push(x as Leaf)
    }
  }
}

/**
 * Encodes `values` (each with the path of its file): appends to `rows[i]` value i's shape index and leaves.
 * Returns the shapes and the table the rows refer to.
 */
export function encodeValues(values: ReadonlyArray<{ value: unknown; path: string }>, rows: unknown[][]): { shapes: Shape[]; table: string[] } {
  type Flat = null | { whole: unknown } | { keys: Array<string | [string, unknown[]]>; leaves: Leaf[]; path: string }
  const flat = values.map(({ value, path }): Flat => {
    if (value === null) return null
    if (typeof value !== 'object' || !shapeable(value)) return { whole: swapPath(value, path, PATH_MARK) }
    const keys: Array<string | [string, unknown[]]> = []
    const leaves: Leaf[] = []
    flatten(value as Record<string, unknown>, keys, leaves)
    return { keys, leaves, path }
  })
  const seen = new Map<string, number>()
  for (const f of flat) if (f && 'leaves' in f) for (const x of f.leaves) if (typeof x === 'string' && x !== f.path) seen.set(x, (seen.get(x) ?? 0) + 1)
  const table: string[] = []
  const index = new Map<string, number>()
  for (const [s, n] of seen) if (n > 1) index.set(s, table.push(s) - 1)
  const shapes: Shape[] = []
  const shapeIndex = new Map<string, number>()
  flat.forEach((f, i) => {
    const row = rows[i]!
    if (f === null) return void row.push(NULL_VALUE)
    if ('whole' in f) return void row.push(WHOLE, f.whole)
    const at = row.push(0) - 1
    let n = 0
    const shape = (keys: Array<string | [string, unknown[]]>): Shape =>
      keys.map((k) => {
        if (typeof k !== 'string') return [k[0], shape(k[1] as Array<string | [string, unknown[]]>)]
        const x = f.leaves[n++]!
        if (x === f.path) return PATH + k
        const t = typeof x === 'string' ? index.get(x) : undefined
        row.push(t ?? x)
        return (t === undefined ? LITERAL : TABLED) + k
      })
    const s = shape(f.keys)
    const key = JSON.stringify(s)
    let si = shapeIndex.get(key)
    if (si === undefined) shapeIndex.set(key, (si = shapes.push(s) - 1))
    row[at] = si
  })
  return { shapes, table }
}

/** A compiled shape's kinds of key. */
const Kind = { Literal: 0, Tabled: 1, Path: 2, Nested: 3 } as const
type Kind = (typeof Kind)[keyof typeof Kind]

interface Compiled {
  names: string[]
  kinds: Kind[]
  subs: Array<Compiled | undefined>
  /** How many leaves a row of this shape holds. */
  leaves: number
}

/** Thrown (and caught by the cache, which then reads the file) for a row that does not fit its shape. */
class Damaged extends Error {}

function compile(s: unknown): Compiled {
  if (!Array.isArray(s)) throw new Damaged('shape')
  const c: Compiled = { names: [], kinds: [], subs: [], leaves: 0 }
  for (const k of s as unknown[]) {
    if (Array.isArray(k) && typeof k[0] === 'string' && k[0] !== '__proto__') {
      const sub = compile(k[1])
      c.names.push(k[0])
      c.kinds.push(Kind.Nested)
      c.subs.push(sub)
      c.leaves += sub.leaves
      continue
    }
    if (typeof k !== 'string' || k.length < 1 || k.slice(1) === '__proto__') throw new Damaged('shape')
    const kind = k[0] === LITERAL ? Kind.Literal : k[0] === TABLED ? Kind.Tabled : k[0] === PATH ? Kind.Path : undefined
    if (kind === undefined) throw new Damaged('shape')
    c.names.push(k.slice(1))
    c.kinds.push(kind)
    c.subs.push(undefined)
    if (kind !== Kind.Path) c.leaves++
  }
  return c
}

/** Values back from rows, with the shapes and the table of the file they came from. */
export class ValueReader {
  private readonly shapes: Compiled[]
  private readonly table: string[]
  private at = 0

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
    if (!c || row.length !== at + 1 + c.leaves) return undefined
    this.at = at + 1
    try {
      return this.build(c, row, path)
    } catch (err) {
      if (err instanceof Damaged) return undefined
      throw err
    }
  }

  private build(c: Compiled, row: readonly unknown[], path: string): Record<string, unknown> {
    const o: Record<string, unknown> = {}
    const { names, kinds } = c
    for (let k = 0; k < names.length; k++) {
      switch (kinds[k]) {
        case Kind.Literal: {
          const x = row[this.at++]
          if (typeof x === 'object' && x !== null) throw new Damaged('leaf')
          o[names[k]!] = x
          break
        }
        case Kind.Tabled: {
          const x = row[this.at++]
          const s = typeof x === 'number' ? this.table[x] : undefined
          if (s === undefined) throw new Damaged('leaf')
          o[names[k]!] = s
          break
        }
        case Kind.Path:
          o[names[k]!] = path
          break
        default:
          o[names[k]!] = this.build(c.subs[k]!, row, path)
      }
    }
    return o
  }
}

/** JSON text with every character past U+007F escaped, so the file is ASCII and reads as latin1 into a one-byte string. */
export function asciiJson(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
