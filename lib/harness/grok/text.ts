/**
 * Grok's user-text envelopes. The model log wraps a typed prompt in
 * `<user_query>` and puts harness boilerplate around it (`<image_files>` in
 * 1.0.x, `<image>…<image_description>` in the 0.2.x Cursor harness,
 * `<skill_information>`); the person typed only what is inside the query.
 * The `<image_files>` wording is Grok's `render_image_files_block`
 * (xai-grok-shell/src/session/image_describe.rs).
 */

const QUERY_RE = /<user_query>\n?([\s\S]*?)\n?<\/user_query>/
const ENVELOPES = /<(image_files|image|skill_information)>[\s\S]*?<\/\1>/g

/** What the person typed, from one text part of a `user` item. */
export function stripUserText(text: string): string {
  const m = QUERY_RE.exec(text)
  if (m) return m[1]!
  return text.replace(ENVELOPES, '').trim()
}

export function isUserInfo(text: string): boolean {
  return text.trimStart().startsWith('<user_info>')
}

/** `Workspace Path:` line of the `<user_info>` preamble, the last cwd fallback. */
export function workspacePath(text: string): string | undefined {
  const m = /^Workspace Path:\s*(\S.*)$/m.exec(text)
  return m ? m[1]!.trim() : undefined
}

export function wrapQuery(text: string): string {
  return `<user_query>\n${text}\n</user_query>`
}

export function imageFilesBlock(paths: string[]): string {
  let out = '<image_files>\nThe following images were provided by the user and saved to the workspace for future use:\n'
  paths.forEach((p, i) => {
    out += `${i + 1}. ${p.replaceAll('</image_files>', '')}\n`
  })
  return out + '\nThese images can be copied for use in other locations.\n</image_files>'
}

const MIME_EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/jpg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/bmp': 'bmp' }

/** Grok's `mime_to_extension` (png when unknown). */
export function extForMime(mime: string): string {
  return MIME_EXT[mime] ?? 'png'
}

/** `data:<mime>;base64,<data>` → parts, or null. */
export function parseDataUrl(url: string): { mime: string; data: string } | null {
  const m = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url)
  return m ? { mime: m[1]!, data: m[2]! } : null
}
