/** OpenCode's tool vocabulary: the family's (`../family/opencode-tools.ts`). */
import { openCodeTools } from '../family/opencode-tools.js'

export const tools = openCodeTools
