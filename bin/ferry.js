#!/usr/bin/env node
// Only starts the CLI: argument parsing and everything else live in lib/cli.
import { main } from '../dist/lib/cli/main.js'

main(process.argv.slice(2))
