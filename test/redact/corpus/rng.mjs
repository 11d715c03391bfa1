/** A seeded PRNG (xorshift32) and the alphabets the corpus draws from. */
export class Rng {
  /** `warmup`: draws thrown away first (the older bench corpus, bench/redact-corpus.mjs, uses none, so its values stay as they were). */
  constructor(seed, warmup = 8) {
    this.s = seed >>> 0 || 1
    for (let i = 0; i < warmup; i++) this.next()
  }
  next() {
    let x = this.s
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.s = x >>> 0
    return this.s / 4294967296
  }
  int(a, b) {
    return a + Math.floor(this.next() * (b - a + 1))
  }
  pick(a) {
    return a[Math.floor(this.next() * a.length)]
  }
  str(alpha, n) {
    let o = ''
    for (let i = 0; i < n; i++) o += alpha[Math.floor(this.next() * alpha.length)]
    return o
  }
  chance(p) {
    return this.next() < p
  }
}

export const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export const LO = 'abcdefghijklmnopqrstuvwxyz'
export const DIG = '0123456789'
export const AN = UP + LO + DIG
export const HEX = '0123456789abcdef'
export const B64 = AN + '+/'
export const B64U = AN + '_-'
export const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
export const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

export const b64 = (s) => Buffer.from(s, 'utf8').toString('base64')
export const b64url = (s) => Buffer.from(s, 'utf8').toString('base64url')

/** A random but well-formed-looking PEM private key body. */
export function pem(r, label, lines) {
  return `-----BEGIN ${label}-----\n${Array.from({ length: lines }, () => r.str(B64, 64)).join('\n')}\n${r.str(B64, r.int(8, 60))}\n-----END ${label}-----`
}

export function uuid(r) {
  return `${r.str(HEX, 8)}-${r.str(HEX, 4)}-4${r.str(HEX, 3)}-${r.pick(['8', '9', 'a', 'b'])}${r.str(HEX, 3)}-${r.str(HEX, 12)}`
}

export function jwt(r, payload) {
  const head = b64url(JSON.stringify({ alg: r.pick(['HS256', 'RS256']), typ: 'JWT' }))
  return `${head}.${b64url(JSON.stringify(payload))}.${r.str(B64U, r.pick([43, 86, 342]))}`
}

/** A password as people pick them for services: letters, digits, a few symbols. */
export function password(r) {
  const sym = '!#%^*-_+=.~@'
  let p = r.str(AN, r.int(4, 10)) + r.pick(sym.split('')) + r.str(AN, r.int(4, 12))
  if (r.chance(0.5)) p += r.pick(sym.split('')) + r.str(DIG, r.int(1, 4))
  return p
}
