/** OpenCode's tool vocabulary: the family's (`../family/opencode-tools.ts`). */
export { openCodeTools as tools } from '../family/opencode-tools.js'
