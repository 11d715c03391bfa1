import { existsSync, readFileSync } from 'node:fs'

// Source (lib/) and compiled (dist/lib/) files sit at different depths.
const pkgUrl = [new URL('../package.json', import.meta.url), new URL('../../package.json', import.meta.url)].find((u) => existsSync(u))

/** ferry's own version, from package.json (read once at start-up). */
export const VERSION: string = pkgUrl ? (JSON.parse(readFileSync(pkgUrl, 'utf8')) as { version: string }).version : '0.0.0'
