/**
 * The one "stay inside the store root" check of every writer. Names from the
 * input are checked where they are built; this guards the filesystem side:
 * a symlinked directory inside a store (a project folder, `sessions/2026`)
 * must not carry a write somewhere else. The deepest existing ancestor of
 * the target is resolved with every symlink followed and must lie inside the
 * resolved root.
 */
import { lstatSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { UnsafePathError } from '../errors.js'

function within(root: string, p: string): boolean {
  const rel = relative(root, p)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p)
  } catch {
    return null
  }
}

/** The deepest existing folder above `abs` must resolve inside the root: a symlink on the way would carry the write out. */
function ancestorsInside(absRoot: string, realRoot: string, abs: string): void {
  let dir = dirname(abs)
  for (;;) {
    const real = realOrNull(dir)
    if (real !== null) {
      if (!within(realRoot, real) && within(absRoot, dir)) throw new UnsafePathError(`refusing to write through a symlink that leaves ${absRoot}: ${dir}`, dir)
      return
    }
    const up = dirname(dir)
    if (up === dir) return
    dir = up
  }
}

/** Throws UnsafePathError unless `target` (a file or directory to be created) stays inside `root`. */
export async function insideRoot(root: string, target: string): Promise<void> {
  const absRoot = resolve(root)
  const abs = resolve(target)
  if (!within(absRoot, abs)) throw new UnsafePathError(`refusing to write outside ${absRoot}: ${abs}`, abs)
  // A root that does not exist yet is created by the writer; then nothing below it can be a link.
  ancestorsInside(absRoot, realOrNull(absRoot) ?? absRoot, abs)
}

/**
 * The same check, synchronous, for a file that may already exist (a SQLite
 * database and its `-wal`/`-shm` beside it): the file itself, when it is
 * there, and its deepest existing folder must resolve inside `root`.
 */
export function fileInsideRootSync(root: string, file: string): void {
  const absRoot = resolve(root)
  const abs = resolve(file)
  if (!within(absRoot, abs)) throw new UnsafePathError(`refusing to write outside ${absRoot}: ${abs}`, abs)
  const realRoot = realOrNull(absRoot) ?? absRoot
  // The file itself when it is there (a dangling link too: SQLite would create its target).
  if (isLink(abs)) {
    const real = realOrNull(abs)
    if (real === null || !within(realRoot, real)) throw new UnsafePathError(`refusing to write through a symlink that leaves ${absRoot}: ${abs}`, abs)
  }
  ancestorsInside(absRoot, realRoot, abs)
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}
