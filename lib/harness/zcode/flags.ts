/**
 * ZCode's own options: reading can leave `zcode-artifact://` references as
 * they are; writing takes the family's provider/model flags.
 */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'
import { modelFlags } from '../family/opencode-flags.js'

export const readFlags = {
  inlineArtifacts: { type: 'boolean', describe: 'read images and attachments named zcode-artifact:// from cli/artifacts/, as ZCode does on resume (--no-zcode-inline-artifacts keeps the references)', default: true },
} satisfies Flags

export const writeFlags = modelFlags({ provider: 'providerId', model: 'modelId', on: 'sessions', providerNote: "must exist in ZCode's config" })

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
