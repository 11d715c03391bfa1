/**
 * OpenCode-shaped ids: prefix `_` + 12 hex digits of (epoch ms × 4096 +
 * counter), truncated to 48 bits (bitwise complemented for sessions, so newer
 * sorts first) + 14 base-62 characters. Upstream makes the tail random; ferry
 * derives it from a hash of the source so a conversion is reproducible, and
 * keeps a per-session monotonic value so ids sort in write order even when
 * source timestamps tie or go backwards (OpenCode replays parts by id).
 * Shape: https://github.com/anomalyco/opencode/blob/0ae6794dfa00662516acb944b561272ca4794de9/packages/opencode/src/id/id.ts
 */
import { createHash } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const MASK48 = (1n << 48n) - 1n

function tail(seed: string): string {
  const h = createHash('sha256').update(seed).digest()
  let s = ''
  for (let i = 0; i < 14; i++) s += BASE62[h[i]! % 62]
  return s
}

function hex48(v: bigint): string {
  return (v & MASK48).toString(16).padStart(12, '0')
}

/** A session id (descending, like OpenCode's). */
export function sessionId(ms: number, seed: string): string {
  return `ses_${hex48(~(BigInt(Math.max(0, Math.floor(ms))) * 4096n + 1n))}${tail(`ses:${seed}`)}`
}

/** Mints ascending message and part ids for one session, strictly increasing. */
export class IdMinter {
  private last = 0n
  private n = 0

  constructor(private readonly seed: string) {}

  private next(prefix: 'msg' | 'prt', ms: number): string {
    let v = BigInt(Math.max(0, Math.floor(ms))) * 4096n + 1n
    if (v <= this.last) v = this.last + 1n
    this.last = v
    return `${prefix}_${hex48(v)}${tail(`${prefix}:${this.seed}:${this.n++}`)}`
  }

  message(ms: number): string {
    return this.next('msg', ms)
  }

  part(ms: number): string {
    return this.next('prt', ms)
  }
}

export const ID_SHAPE = /^(ses|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}$/
