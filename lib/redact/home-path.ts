/**
 * The home-directory rule of `redact --paths`: which text is a home prefix
 * that becomes `~`. Only the start of an absolute path counts — `/home/<user>`,
 * `/Users/<user>`, `C:\Users\<user>` (also with JSON's doubled backslashes)
 * and the given home itself — so `/srv/app/home/bob/x` and
 * `…/claude-code/home/.claude` stay as they are.
 */

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * What may come right before a path's leading `/` or drive letter: the start of the text, a
 * character that cannot be inside a path (space, quote, `=`, brackets, `:`, `,`, `;`, `|`), or
 * JSON's escaped newline/tab/CR (native.raw is JSON text, where a path after a line break follows `\n`), or `file://`.
 */
const PATH_START = `(?<=^|[\\s"'\`=(\\[{<>,;:|]|\\\\[nrt]|file://)`

/** The pattern of home prefixes (global); `home` is the session's or this machine's home directory. */
export function homePathPattern(home: string): RegExp {
  const homes = ['/home/[^/\\s"\'\\\\]+', '/Users/[^/\\s"\'\\\\]+', '[A-Za-z]:\\\\{1,2}Users\\\\{1,2}[^\\\\\\s"\']+']
  if (home && home !== '/') homes.unshift(escape(home))
  return new RegExp(`${PATH_START}(?:${homes.join('|')})(?=[/\\\\]|$|[\\s"'])`, 'g')
}
