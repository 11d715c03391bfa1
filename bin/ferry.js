#!/usr/bin/env node
// Only starts the CLI: argument parsing and everything else live in lib/cli.
// dist/ferry.mjs is that code bundled into one module (scripts/bundle.mjs).
import { main } from '../dist/ferry.mjs'

main(process.argv.slice(2))
