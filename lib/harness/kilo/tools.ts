/**
 * Kilo's tool vocabulary: OpenCode's (`../family/opencode-tools.ts`); the
 * fork keeps OpenCode's tool names and argument keys (`bash`, `read`,
 * `edit {filePath, oldString, newString}`, `task`, …), as its genuine
 * sessions show (docs/formats/kilo.md).
 */
import { openCodeTools } from '../family/opencode-tools.js'

export const tools = openCodeTools
