/**
 * The interchange stream has no tool vocabulary of its own: it carries
 * whatever names the records hold (native, or canonical once normalized).
 */
import { EMPTY_VOCABULARY, type ToolVocabulary } from '../../vocabulary/types.js'

export const tools: ToolVocabulary = EMPTY_VOCABULARY
