// The cursor line of the contract suite on its own (the full suite runs every harness).
import t from 'tap'
import { contract } from '../contract.js'

t.setTimeout(10 * 60_000)
contract(t, { harness: 'cursor', fixture: 'cursor', roundTrip: 'bytes', storage: { lines: true }, fixpointIgnores: ['ts'] })
