/**
 * truncate: caps text by block kind, UTF-8 safe, with a visible cut.
 *
 * Options (`TruncateOptions`), every cap optional:
 * - `toolInput`   each string inside a tool call's input (and native_input)
 * - `toolOutput`  a tool result's text (string content, or each text part)
 * - `thinking`    thinking text (signature/encrypted are dropped when cut)
 * - `text`        each text block
 * - `message`     all text of one message together; later blocks get what is left
 * - `unit`        'chars' (UTF-16 code units, never splitting a surrogate pair; default) or 'bytes' (UTF-8, never splitting a character)
 * - `keepTail`    also keep this many units of the end (default 0)
 * - `preset`      'origin': toolInput 2000, toolOutput 4000 characters (explicit caps win)
 * - `images`      'keep' (default), 'strip' (replace by a text placeholder), 'extract' (write to `imagesDir`, keep a `ref`)
 * - `imagesDir`   directory for `images: 'extract'` (files named by SHA-256, so repeats are written once)
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
import { mapStrings, recordTransform, withBlocks } from './util.js'

export interface TruncateOptions {
  toolInput?: number
  toolOutput?: number
  thinking?: number
  text?: number
  message?: number
  unit?: 'chars' | 'bytes'
  keepTail?: number
  preset?: 'origin'
  images?: 'keep' | 'strip' | 'extract'
  imagesDir?: string
}

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
export function tailOf(s: string, n: number, unit: 'chars' | 'bytes'): string {
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
  const o: TruncateOptions = opts.preset === 'origin' ? { toolInput: 2000, toolOutput: 4000, ...opts } : opts
  const unit = o.unit ?? 'chars'
  const tail = o.keepTail ?? 0
  const images = o.images ?? 'keep'
  if (images === 'extract') {
    if (!o.imagesDir) throw new Error('truncate: images "extract" needs imagesDir')
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

  return recordTransform((rec, push) => {
    if (rec.kind !== 'message') return push(rec)
    const m = rec as MessageRec
    let blocks: Block[] | null = null
    m.blocks.forEach((b, i) => {
      const n = block(b)
      if (n !== b) (blocks ??= m.blocks.slice())[i] = n
    })
    const capped = messageCap(blocks ?? m.blocks)
    if (capped.some((b, i) => b !== m.blocks[i])) push(withBlocks(m, capped))
    else push(m)
  })
}
