#!/usr/bin/env node
// Only starts the CLI: argument parsing and everything else live in lib/cli.
// dist/ferry.mjs is that code bundled into one module (scripts/bundle.mjs).
// On Node ≥ 22.1, Node's compile cache keeps the bundle's compiled code
// between runs (in Node's own cache directory, os.tmpdir()/node-compile-cache
// unless NODE_COMPILE_CACHE says otherwise; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): a quarter less CPU for every short command. Node 20 has no cache.
import module from 'node:module'

module.enableCompileCache?.()
const { main } = await import('../dist/ferry.mjs')
main(process.argv.slice(2))
