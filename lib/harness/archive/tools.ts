/**
 * The archive has no tool vocabulary of its own: archived records keep the
 * names their own harness wrote.
 */
import { EMPTY_VOCABULARY, type ToolVocabulary } from '../../vocabulary/types.js'

export const tools: ToolVocabulary = EMPTY_VOCABULARY
