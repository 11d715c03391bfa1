/** The old name of the test kit: everything is in test/kit.ts (import it from there). */
export * from './kit.js'
