/**
 * The files under a session's folder (its sidecars: checkpoints, spilled outputs), as paths
 * relative to it: depth-first, sorted by name, symlinks never followed, at most five levels down.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

/** `skip(rel, name)`: a file or folder left out (with everything under it). */
export async function filesUnder(dir: string, skip: (rel: string, name: string) => boolean, sub = '', depth = 0): Promise<string[]> {
  if (depth > 4) return []
  let ents
  try {
    ents = await readdir(join(dir, sub), { withFileTypes: true })
  } catch {
    return []
  }
  const out: string[] = []
  for (const e of ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = sub ? `${sub}/${e.name}` : e.name
    if (skip(rel, e.name)) continue
    if (e.isDirectory()) out.push(...(await filesUnder(dir, skip, rel, depth + 1)))
    else if (e.isFile()) out.push(rel)
  }
  return out
}
