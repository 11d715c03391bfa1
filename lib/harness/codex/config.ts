/**
 * What the sink takes from `$CODEX_HOME/config.toml`: the top-level `model`
 * and `model_provider` (the ones Codex itself starts with), so a written
 * session resumes with the user's provider. A file that does not parse is
 * reported and ignored: the defaults are still a session Codex can load.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'smol-toml'
import type { Diagnostics } from '../../diagnostics.js'

export interface CodexConfig {
  model?: string
  model_provider?: string
}

export async function readCodexConfig(root: string, diagnostics: Diagnostics): Promise<CodexConfig> {
  const file = join(root, 'config.toml')
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return {}
  }
  let doc: Record<string, unknown>
  try {
    doc = parse(text)
  } catch (err) {
    const line = (err as { line?: unknown }).line
    const first = (err as Error).message.split('\n')[0]
    diagnostics.warn('bad-config', `not valid TOML, its model and model_provider are not used: ${first}`, { file, ...(typeof line === 'number' ? { line } : {}) }, 'codex')
    return {}
  }
  const out: CodexConfig = {}
  if (typeof doc.model === 'string' && doc.model) out.model = doc.model
  if (typeof doc.model_provider === 'string' && doc.model_provider) out.model_provider = doc.model_provider
  return out
}
