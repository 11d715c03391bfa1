#!/usr/bin/env node
// Only starts the CLI: argument parsing and everything else live in lib/cli.
// dist/ferry.mjs is that code bundled into one module (scripts/bundle.mjs).
// On Node ≥ 22.1, Node's compile cache keeps the bundle's compiled code
// between runs (in Node's own cache directory, os.tmpdir()/node-compile-cache
// unless NODE_COMPILE_CACHE says otherwise; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): a quarter less CPU for every short command. Node 20 has no cache.
// A command that streams whole sessions runs in a second Node process started
// with V8 heap flags, which Node reads only at startup (lib/cli/relaunch.ts).
// `ferry --version` alone needs only the version: it loads nothing else
// (docs/performance.md, "Start-up").
import module from 'node:module'
import { fileURLToPath } from 'node:url'

module.enableCompileCache?.()
const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/lib/version.js')
  process.stdout.write(`${VERSION}\n`)
} else {
  const { nodeFlagsFor, relaunch, watchLauncher } = await import('../dist/lib/cli/relaunch.js')
  const flags = nodeFlagsFor(args)
  if (!flags.length || !(await relaunch(flags, fileURLToPath(import.meta.url), args))) {
    watchLauncher()
    const { main } = await import('../dist/ferry.mjs')
    main(args)
  }
}
