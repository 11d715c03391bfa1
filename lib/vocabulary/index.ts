/**
 * The tool vocabulary: the engine that maps tool calls native ↔ canonical
 * with the vocabularies each harness declares (`lib/harness/<id>/tools.ts`,
 * handed over by the harness registry), plus the building blocks those
 * vocabularies are written with.
 */
export { toCanonical, toNative } from './engine.js'
export { registerVocabularies, vocabularyOf, knownVocabularies } from './registry.js'
export { CANONICAL_TOOLS, EMPTY_VOCABULARY, type NativeCall, type Out, type Rule, type ToolHint, type ToolInput, type ToolVocabulary } from './types.js'
export { argvToCommand, isStringArray, shellQuote } from './shell.js'
export { lowerPatch, parsePatch, patchFiles, renderAdd, renderEdits, type Hunk, type HunkLine, type PatchOp } from './patch.js'
