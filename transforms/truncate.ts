/**
 * truncate: caps text by block kind, UTF-8 safe, with a visible cut. Its
 * options are `truncateOptions` below.
 *
 * The cut reads `… [truncated 12,345 chars]`. A cut tool result records
 * `truncated.original_chars` / `original_bytes`. Records changed lose
 * `native`; untouched records keep it. Blocks are never removed, so tool
 * pairs stay intact.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Transform } from 'node:stream'
import type { Block, ImageBlock, MessageRec, ResultPart, TextBlock } from '../lib/model.js'
import { UsageError } from '../lib/errors.js'
import { mapRecords } from '../lib/io/pipeline.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'
import { mapStrings, withBlocks } from './util.js'

const cap = (describe: string) => ({ type: 'number', integer: true, min: 0, describe }) as const

export const truncateOptions = defineOptions({
  toolInput: cap('Cap each string inside a tool call input (and `native_input`)'),
  toolOutput: cap('Cap tool result text (string content, or each text part)'),
  thinking: cap('Cap thinking text (`signature`/`encrypted` are dropped when cut)'),
  text: cap('Cap each text block'),
  message: cap('Cap all text of one message together; later blocks get what is left'),
  unit: { type: 'string', choices: ['chars', 'bytes'], default: 'chars', describe: 'What caps count: UTF-16 code units, never splitting a surrogate pair, or UTF-8 bytes, never splitting a character' },
  bytes: { type: 'boolean', default: false, describe: 'Caps are UTF-8 bytes (the same as `unit: bytes`)' },
  keepTail: { type: 'number', integer: true, min: 0, default: 0, describe: 'Also keep this much of the end' },
  preset: { type: 'string', choices: ['origin'], describe: '`origin`: tool input 2000, tool output 4000 characters (explicit caps win)' },
  images: { type: 'string', choices: ['keep', 'strip', 'extract'], default: 'keep', describe: '`strip` replaces an image by a text placeholder; `extract` writes it to `imagesDir` and keeps a `ref`' },
  imagesDir: { type: 'string', describe: 'Where `images: extract` writes image files (named by SHA-256, so repeats are written once)' },
})

export type TruncateOptions = OptionsOf<typeof truncateOptions>

const enc = new TextEncoder()

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff
}

/** The longest prefix of `s` that fits `n` units, never splitting a character. */
export function headOf(s: string, n: number, unit: 'chars' | 'bytes'): string {
  if (n <= 0) return ''
  if (unit === 'chars') {
    if (s.length <= n) return s
    return isHigh(s.charCodeAt(n - 1)) ? s.slice(0, n - 1) : s.slice(0, n)
  }
  const buf = new Uint8Array(n)
  const { read } = enc.encodeInto(s, buf)
  return s.slice(0, read)
}

/** The longest suffix of `s` that fits `n` units. */
function tailOf(s: string, n: number, unit: 'chars' | 'bytes'): string {
  if (n <= 0) return ''
  if (unit === 'chars') {
    if (s.length <= n) return s
    const start = s.length - n
    const c = s.charCodeAt(start)
    return c >= 0xdc00 && c <= 0xdfff ? s.slice(start + 1) : s.slice(start)
  }
  // Walk back by code points until the byte budget is spent.
  let bytes = 0
  let i = s.length
  while (i > 0) {
    const cp = s.codePointAt(i - 1)!
    let step = 1
    let cpFull = cp
    if (cp >= 0xdc00 && cp <= 0xdfff && i >= 2 && isHigh(s.charCodeAt(i - 2))) {
      step = 2
      cpFull = s.codePointAt(i - 2)!
    }
    const b = cpFull < 0x80 ? 1 : cpFull < 0x800 ? 2 : cpFull < 0x10000 ? 3 : 4
    if (bytes + b > n) break
    bytes += b
    i -= step
  }
  return s.slice(i)
}

function sizeOf(s: string, unit: 'chars' | 'bytes'): number {
  return unit === 'chars' ? s.length : Buffer.byteLength(s)
}

export function cut(s: string, cap: number, unit: 'chars' | 'bytes', keepTail = 0): string {
  const size = sizeOf(s, unit)
  if (size <= cap) return s
  const tail = Math.min(keepTail, cap)
  const head = headOf(s, cap - tail, unit)
  const end = tail > 0 ? tailOf(s, tail, unit) : ''
  const removed = size - sizeOf(head, unit) - sizeOf(end, unit)
  return `${head}… [truncated ${removed.toLocaleString('en-US')} ${unit}]${end ? '\n' + end : ''}`
}

export function truncate(opts: TruncateOptions = {}): Transform {
  const given = resolveOptions('truncate', truncateOptions, opts)
  const o = given.preset === 'origin' ? { toolInput: 2000, toolOutput: 4000, ...stripUndefined(given) } : given
  const unit = o.bytes ? 'bytes' : o.unit
  const tail = o.keepTail
  const images = o.images
  if (images === 'extract') {
    if (!o.imagesDir) throw new UsageError('truncate: images "extract" needs imagesDir')
    mkdirSync(o.imagesDir, { recursive: true })
  }

  function image(b: ImageBlock): ImageBlock | TextBlock {
    if (images === 'keep' || b.data === undefined) return b
    const bytes = Math.floor((b.data.length * 3) / 4)
    if (images === 'strip') return { type: 'text', text: `[image ${b.mime}, ${bytes.toLocaleString('en-US')} bytes removed]` }
    const data = Buffer.from(b.data, 'base64')
    const ext = (b.mime.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/gi, '') || 'bin'
    const path = join(o.imagesDir!, `${createHash('sha256').update(data).digest('hex')}.${ext}`)
    try {
      writeFileSync(path, data, { flag: 'wx' })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const { data: _d, ...rest } = b
    return { ...rest, ref: { path } }
  }

  function block(b: Block): Block {
    switch (b.type) {
      case 'text':
        return o.text !== undefined ? ((t) => (t === b.text ? b : { ...b, text: t }))(cut(b.text, o.text, unit, tail)) : b
      case 'thinking': {
        if (o.thinking === undefined) return b
        const t = cut(b.text, o.thinking, unit, tail)
        if (t === b.text) return b
        const { signature: _s, encrypted: _e, ...rest } = b
        return { ...rest, text: t }
      }
      case 'tool_use': {
        if (o.toolInput === undefined) return b
        const f = (s: string): string => cut(s, o.toolInput!, unit, tail)
        const input = mapStrings(b.input, f)
        const ni = b.native_input === undefined ? undefined : mapStrings(b.native_input, f)
        if (input === b.input && ni === b.native_input) return b
        return { ...b, input, ...(ni === undefined ? {} : { native_input: ni }) }
      }
      case 'tool_result': {
        let content = b.content
        let origChars = 0
        let origBytes = 0
        let cutAny = false
        const capText = (s: string): string => {
          if (o.toolOutput === undefined) return s
          const t = cut(s, o.toolOutput, unit, tail)
          origChars += s.length
          origBytes += Buffer.byteLength(s)
          if (t !== s) cutAny = true
          return t
        }
        if (typeof content === 'string') content = capText(content)
        else {
          let parts: ResultPart[] | null = null
          content.forEach((p, i) => {
            const n: ResultPart = p.type === 'text' ? ((t) => (t === p.text ? p : { ...p, text: t }))(capText(p.text)) : image(p)
            if (n !== p) (parts ??= (content as ResultPart[]).slice())[i] = n
          })
          if (parts) content = parts
        }
        if (content === b.content) return b
        const out = { ...b, content }
        if (cutAny && !b.truncated) out.truncated = { original_chars: origChars, original_bytes: origBytes }
        return out
      }
      case 'image':
        return image(b)
      default:
        return b
    }
  }

  /** Applies the whole-message budget to text-like blocks in order. */
  function messageCap(blocks: Block[]): Block[] {
    if (o.message === undefined) return blocks
    let left = o.message
    return blocks.map((b) => {
      if (b.type === 'text' || b.type === 'thinking') {
        const t = cut(b.text, Math.max(left, 0), unit, 0)
        left -= sizeOf(b.text, unit)
        if (t === b.text) return b
        if (b.type === 'thinking') {
          const { signature: _s, encrypted: _e, ...rest } = b
          return { ...rest, text: t }
        }
        return { ...b, text: t }
      }
      return b
    })
  }

  return mapRecords((rec) => {
    if (rec.kind !== 'message') return rec
    const m = rec as MessageRec
    let blocks: Block[] | null = null
    m.blocks.forEach((b, i) => {
      const n = block(b)
      if (n !== b) (blocks ??= m.blocks.slice())[i] = n
    })
    const capped = messageCap(blocks ?? m.blocks)
    return capped.some((b, i) => b !== m.blocks[i]) ? withBlocks(m, capped) : m
  })
}

/** `{toolInput: undefined}` must not undo a preset's cap. */
function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}
