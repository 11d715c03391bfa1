export * from '../vocabulary/index.js'
