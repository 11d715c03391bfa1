/**
 * Telling Codex's injected messages from typed ones. New rollouts say it in
 * `content_item_metadata[].provenance.type` (`harness` / `user`); older ones
 * only show it by wrapping the whole text in one tag.
 */
import type { ContextKind } from '../../model.js'

const WRAPPED = /^\s*<([a-z_]+)(?:[\s>])[\s\S]*<\/\1>\s*$/

const KIND_BY_TAG: Record<string, ContextKind> = {
  environment_context: 'environment',
  user_instructions: 'instructions',
  INSTRUCTIONS: 'instructions',
  user_shell_command: 'command',
  skill: 'skill',
  skills_instructions: 'skill',
  turn_aborted: 'other',
  permissions: 'instructions',
  collaboration_mode: 'instructions',
}

/**
 * The content items the harness injected into a message that also holds typed ones (item
 * metadata, one per content item, says `harness` for some and `user` for others); null when
 * the message is all one or the other.
 */
export function harnessItems(payload: any): Set<number> | null {
  const meta = payload?.internal_chat_message_metadata_passthrough?.content_item_metadata
  if (!Array.isArray(meta) || !Array.isArray(payload?.content) || meta.length !== payload.content.length) return null
  const harness = new Set<number>()
  meta.forEach((m: any, i: number) => {
    if (m?.provenance?.type === 'harness') harness.add(i)
  })
  return harness.size > 0 && harness.size < meta.length ? harness : null
}

/** `null` when the user typed it; else what kind of context it is. */
export function userContextKind(payload: any, text: string): ContextKind | null {
  const meta = payload?.internal_chat_message_metadata_passthrough?.content_item_metadata
  if (Array.isArray(meta) && meta.length > 0) {
    const harness = meta.some((m: any) => m?.provenance?.type === 'harness')
    if (!harness) return null
    return tagKind(text) ?? 'other'
  }
  if (text.startsWith('# AGENTS.md instructions for')) return 'instructions'
  if (text.startsWith('## My request for Codex:')) return null
  return tagKind(text)
}

function tagKind(text: string): ContextKind | null {
  const m = WRAPPED.exec(text)
  if (!m) return null
  return KIND_BY_TAG[m[1]!] ?? 'other'
}
