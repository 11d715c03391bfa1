/**
 * This harness's tool vocabulary (names and argument keys ↔ canonical).
 * Placeholder until the table moves here from lib/tools/table.ts.
 */
import { EMPTY_VOCABULARY, type ToolVocabulary } from '../../vocabulary/types.js'

export const tools: ToolVocabulary = EMPTY_VOCABULARY
