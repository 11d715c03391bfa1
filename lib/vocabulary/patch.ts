/**
 * The Codex `apply_patch` envelope (`*** Begin Patch … *** End Patch`, also
 * used by OpenCode's `apply_patch`): parse it, lower the simple cases to
 * Write / Edit, and render Write / Edit / MultiEdit back into patch text.
 * Grammar and sources: docs/tools.md.
 */

export type HunkLine = { t: ' ' | '-' | '+'; s: string }
export interface Hunk {
  header: string | null
  lines: HunkLine[]
  eof: boolean
}
export type PatchOp =
  | { op: 'add'; path: string; lines: string[] }
  | { op: 'delete'; path: string }
  | { op: 'update'; path: string; moveTo?: string; hunks: Hunk[] }

/** Parses patch text; null when it is not a well-formed envelope. */
export function parsePatch(text: string): PatchOp[] | null {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  let i = 0
  while (i < lines.length && lines[i]!.trim() === '') i++
  if (lines[i]?.trim() !== '*** Begin Patch') return null
  i++
  const ops: PatchOp[] = []
  let ended = false
  while (i < lines.length) {
    const l = lines[i]!
    if (l.trim() === '*** End Patch') {
      ended = true
      break
    }
    if (l.startsWith('*** Add File: ')) {
      const op: PatchOp = { op: 'add', path: l.slice(14), lines: [] }
      i++
      while (i < lines.length && lines[i]!.startsWith('+')) op.lines.push(lines[i++]!.slice(1))
      ops.push(op)
      continue
    }
    if (l.startsWith('*** Delete File: ')) {
      ops.push({ op: 'delete', path: l.slice(17) })
      i++
      continue
    }
    if (l.startsWith('*** Update File: ')) {
      const op: Extract<PatchOp, { op: 'update' }> = { op: 'update', path: l.slice(17), hunks: [] }
      i++
      if (lines[i]?.startsWith('*** Move to: ')) op.moveTo = lines[i++]!.slice(13)
      let cur: Hunk | null = null
      while (i < lines.length) {
        const h = lines[i]!
        if (h.startsWith('*** ') && h !== '*** End of File') break
        if (h === '*** End of File') {
          if (cur) cur.eof = true
          i++
          continue
        }
        if (h.startsWith('@@')) {
          cur = { header: h === '@@' ? null : h.slice(2).replace(/^ /, ''), lines: [], eof: false }
          op.hunks.push(cur)
          i++
          continue
        }
        const t = h[0]
        if (t === ' ' || t === '-' || t === '+' || h === '') {
          if (!cur) {
            cur = { header: null, lines: [], eof: false }
            op.hunks.push(cur)
          }
          cur.lines.push({ t: h === '' ? ' ' : (t as ' ' | '-' | '+'), s: h.slice(1) })
          i++
          continue
        }
        return null
      }
      ops.push(op)
      continue
    }
    if (l.trim() === '') {
      i++
      continue
    }
    return null
  }
  return ended ? ops : null
}

export function patchFiles(ops: PatchOp[]): string[] {
  const out: string[] = []
  for (const o of ops) {
    out.push(o.path)
    if (o.op === 'update' && o.moveTo) out.push(o.moveTo)
  }
  return out
}

/**
 * The exact Write / Edit equivalent of a patch, or null. Exact means: one
 * file; Add File (content = lines + '\n', as Codex writes it), or Update File
 * with one hunk, no header, no move, no end-of-file anchor and a non-empty
 * old side (the hunk's context is part of old_string and new_string).
 */
export function lowerPatch(ops: PatchOp[]): { name: 'Write' | 'Edit'; input: Record<string, unknown> } | null {
  if (ops.length !== 1) return null
  const o = ops[0]!
  if (o.op === 'add') return { name: 'Write', input: { file_path: o.path, content: o.lines.map((l) => l + '\n').join('') } }
  if (o.op !== 'update' || o.moveTo || o.hunks.length !== 1) return null
  const h = o.hunks[0]!
  if (h.header !== null || h.eof) return null
  if (!h.lines.some((l) => l.t !== ' ')) return null
  const oldS = h.lines.filter((l) => l.t !== '+').map((l) => l.s).join('\n')
  const newS = h.lines.filter((l) => l.t !== '-').map((l) => l.s).join('\n')
  if (oldS === '') return null
  return { name: 'Edit', input: { file_path: o.path, old_string: oldS, new_string: newS } }
}

function hunkFor(oldS: string, newS: string): string[] {
  const a = oldS.split('\n')
  const b = newS.split('\n')
  let p = 0
  while (p < a.length && p < b.length && a[p] === b[p]) p++
  let s = 0
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++
  const out = ['@@']
  for (const l of a.slice(0, p)) out.push(' ' + l)
  for (const l of a.slice(p, a.length - s)) out.push('-' + l)
  for (const l of b.slice(p, b.length - s)) out.push('+' + l)
  for (const l of a.slice(a.length - s)) out.push(' ' + l)
  return out
}

export function renderAdd(path: string, content: string): string {
  const body = content.endsWith('\n') ? content.slice(0, -1) : content
  const lines = content === '' ? [] : body.split('\n').map((l) => '+' + l)
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch'].join('\n')
}

export function renderEdits(path: string, edits: Array<{ old_string: string; new_string: string }>): string {
  const out = ['*** Begin Patch', `*** Update File: ${path}`]
  for (const e of edits) out.push(...hunkFor(e.old_string, e.new_string))
  out.push('*** End Patch')
  return out.join('\n')
}
