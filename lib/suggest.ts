/** "Did you mean …?" for a mistyped name: the closest known name, when it is close. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = Infinity
  for (const k of known) {
    const d = k.startsWith(word) || word.startsWith(k) ? 0.5 : distance(k, word)
    if (d < bestD) [best, bestD] = [k, d]
  }
  return bestD <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined
}

/** ` (did you mean X?)` or ''. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known)
  return c ? ` (did you mean ${c}?)` : ''
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = t
    }
  }
  return d[b.length]!
}
