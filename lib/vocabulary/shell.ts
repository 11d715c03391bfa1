/**
 * POSIX shell quoting for turning an argv into one command string, and the
 * reverse check used to decide whether `[sh, -c, X]` can collapse to `X`.
 */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/

/** Quotes one word so a POSIX shell reads it back as exactly that word. */
export function shellQuote(word: string): string {
  if (word === '') return "''"
  if (SAFE.test(word)) return word
  return "'" + word.replace(/'/g, `'\\''`) + "'"
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', '/bin/sh', '/bin/bash', '/bin/zsh', '/usr/bin/bash', '/usr/bin/zsh', '/bin/dash'])
const SCRIPT_FLAGS = new Set(['-c', '-lc', '-cl', '-ic', '-ci', '-l -c'])

/**
 * argv → one command line. `[bash, -lc, X]` is the script `X` itself; any
 * other argv is joined with quoting (never plain spaces: `["echo", "a b"]`
 * must stay one argument).
 */
export function argvToCommand(argv: readonly string[]): string {
  if (argv.length === 3 && SHELLS.has(argv[0]!) && SCRIPT_FLAGS.has(argv[1]!)) return argv[2]!
  return argv.map(shellQuote).join(' ')
}

export function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string')
}
