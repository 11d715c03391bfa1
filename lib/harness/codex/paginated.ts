/**
 * Codex's paginated history (`session_meta.history_mode: "paginated"`, the default for new threads
 * since 0.153, openai/codex PR #30188; legacy rollouts are migrated to it, PR #37348). Such a
 * rollout drops the `user_message` / `agent_message` event projections; a turn's items are
 * committed as `event_msg` `item_completed` (`UserMessage`, `AgentMessage`, `Reasoning`, …),
 * beside the `response_item`s the model saw. 0.171 writes both; a migrated or bounded rollout may
 * hold a turn item without its response item. So a completed item becomes a message unless its
 * response item is there too, before or after it (`AgentMessage`/`Reasoning`: the same id;
 * `UserMessage`: the same text in the same turn): never lost, never twice.
 *
 * Ordinals: Codex has written rollouts whose ordinals repeat (openai/codex issue #35746); a
 * repeated or backward ordinal cannot name a record, so such a line is named by its line number.
 */
import type { Block, MessageRec } from '../../model.js'

/** Remembered ids and texts of one turn: enough to pair a turn's items, bounded. */
const MAX_SEEN = 512

type Make = (role: MessageRec['role'], blocks: Block[], loc: string, ts: string | null, no: number, extra: Partial<MessageRec>) => MessageRec

interface Waiting {
  rec: MessageRec
  /** The response item that would be its twin: by id, or (user prompts) by text. */
  id?: string
  text?: string
}

export class PaginatedItems {
  /** The thread's persisted history mode (`legacy` when absent). */
  mode = 'legacy'
  private highest = -1
  private turn: string | undefined
  private readonly ids = new Set<string>()
  private readonly userTexts = new Set<string>()
  private waiting: Waiting | null = null

  constructor(
    private readonly make: Make,
    private readonly emit: (rec: MessageRec) => void,
  ) {}

  /** The locator of a line with an ordinal: `o<n>` while ordinals grow, else the line number. */
  ordinalLoc(ordinal: number, no: number): string {
    if (ordinal > this.highest) {
      this.highest = ordinal
      return `o${ordinal}`
    }
    return `l${no}`
  }

  /** `session_meta` (the first, or one a resume repeated): the mode it persists. */
  meta(p: any): void {
    if (typeof p?.history_mode === 'string') this.mode = p.history_mode
  }

  /** A new turn (`turn_context`, `task_started`): what pairs items is per turn. */
  newTurn(turnId: unknown): void {
    if (typeof turnId === 'string' && turnId === this.turn) return
    this.release()
    this.turn = typeof turnId === 'string' ? turnId : undefined
    this.ids.clear()
    this.userTexts.clear()
  }

  /**
   * A `response_item` about to be mapped: the twin of the item waiting just before it (which is
   * then dropped), or the waiting item goes out first, in file order.
   */
  responseItem(p: any): void {
    const id = typeof p?.id === 'string' ? p.id : undefined
    const userText = p?.type === 'message' && p.role === 'user' ? textOf(p.content) : undefined
    const w = this.waiting
    if (w && ((w.id !== undefined && w.id === id) || (w.text !== undefined && w.text === userText))) this.waiting = null
    else this.release()
    if (this.ids.size < MAX_SEEN && id) this.ids.add(id)
    if (this.userTexts.size < MAX_SEEN && userText !== undefined) this.userTexts.add(userText)
  }

  /** An `item_completed` event (its line already passed through): a turn item waits for its twin. */
  completed(p: any, loc: string, ts: string | null, no: number): void {
    const it = p?.item
    if (!it || typeof it !== 'object') return
    if (typeof p.turn_id === 'string' && p.turn_id !== this.turn) this.newTurn(p.turn_id)
    const extra: Partial<MessageRec> = { x: { 'codex.item': `item_completed:${String(it.type)}` } }
    if (typeof p.turn_id === 'string') extra.turn = p.turn_id
    const id = typeof it.id === 'string' ? it.id : undefined
    switch (it.type) {
      case 'UserMessage': {
        const blocks = userBlocks(it.content)
        const plain = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
        if (!this.userTexts.has(plain)) this.wait({ rec: this.make('user', blocks, loc, ts, no, extra), text: plain })
        return
      }
      case 'AgentMessage': {
        if (id && this.ids.has(id)) return
        const blocks: Block[] = (Array.isArray(it.content) ? it.content : []).filter((c: any) => typeof c?.text === 'string').map((c: any) => ({ type: 'text', text: c.text }))
        if (id) extra.api_message_id = id
        this.wait({ rec: this.make('assistant', blocks, loc, ts, no, extra), ...(id ? { id } : {}) })
        return
      }
      case 'Reasoning': {
        if (id && this.ids.has(id)) return
        const parts = [...(Array.isArray(it.summary_text) ? it.summary_text : []), ...(Array.isArray(it.raw_content) ? it.raw_content : [])].filter((s): s is string => typeof s === 'string')
        if (!parts.length) return
        if (id) extra.api_message_id = id
        this.wait({ rec: this.make('assistant', [{ type: 'thinking', text: parts.join('\n\n'), provider: 'openai' }], loc, ts, no, extra), ...(id ? { id } : {}) })
        return
      }
      default:
        return
    }
  }

  /** The end of the rollout: an item still waiting had no twin. */
  finish(): void {
    this.release()
  }

  private wait(w: Waiting): void {
    this.release()
    this.waiting = w
  }

  /** The next line is not the twin: the waiting item goes out now, right after its own line. */
  release(): void {
    const w = this.waiting
    if (!w) return
    this.waiting = null
    this.emit(w.rec)
  }
}

/**
 * Codex wraps each image of a prompt in label parts (`<image name=[Image #1] path="…">`, the image,
 * `</image>`) in the response item, not in the turn item: they are no words of the prompt.
 */
export const IMAGE_LABEL = /^(?:<image\b[^>]*>|<\/image>)$/

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  return content.map((c: any) => (typeof c?.text === 'string' && (c.type === 'input_text' || c.type === 'text') && !IMAGE_LABEL.test(c.text) ? c.text : '')).join('')
}

/** `UserInput` items: `text`, `image` (`image_url`), `local_image` (`path`); others stay opaque. */
function userBlocks(content: unknown): Block[] {
  const out: Block[] = []
  for (const c of Array.isArray(content) ? content : []) {
    if (c?.type === 'text' && typeof c.text === 'string') out.push({ type: 'text', text: c.text })
    else if (c?.type === 'image' && typeof c.image_url === 'string') {
      const m = /^data:([^;,]+);base64,/.exec(c.image_url.slice(0, 200))
      out.push(m ? { type: 'image', mime: m[1]!, data: c.image_url.slice(m[0].length) } : { type: 'image', mime: 'application/octet-stream', ref: { url: c.image_url } })
    } else if (c?.type === 'local_image' && typeof c.path === 'string') out.push({ type: 'image', mime: 'application/octet-stream', ref: { path: c.path } })
    else out.push({ type: 'unknown', native_type: `codex/user_input:${String(c?.type)}`, value: c })
  }
  return out
}
