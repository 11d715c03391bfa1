/**
 * The vocabularies the engine maps with, by harness id. The harness registry
 * hands them over once at load, so this folder never imports a harness.
 */
import { EMPTY_VOCABULARY, type ToolVocabulary } from './types.js'

const vocabularies = new Map<string, ToolVocabulary>()

export function registerVocabularies(entries: Iterable<[string, ToolVocabulary]>): void {
  for (const [id, v] of entries) vocabularies.set(id, v)
}

/** The vocabulary of a harness id; an unknown id maps nothing. */
export function vocabularyOf(id: string): ToolVocabulary {
  return vocabularies.get(id) ?? EMPTY_VOCABULARY
}

export function knownVocabularies(): string[] {
  return [...vocabularies.keys()]
}
