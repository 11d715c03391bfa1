/**
 * The `opencode export` document (`{info, messages: [{info, parts}]}`) and
 * the checks ferry runs on it before handing it to `opencode import`.
 * Import is not atomic upstream (it stops at the first bad message and keeps
 * what it inserted), so every message is checked as it is written and a
 * session with a bad one is never handed over. Required fields are the ones
 * `opencode import` 1.18.33 rejected a document without.
 */
import { isObj, type JsonObject as Json } from '../../model.js'
import { ID_SHAPE } from './opencode-ids.js'

export interface ExportMessage {
  info: Json
  parts: Json[]
}

export interface ExportDocument {
  info: Json
  messages: ExportMessage[]
}

const isStr = (v: unknown): v is string => typeof v === 'string'
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

export function sessionInfoProblems(info: Json): string[] {
  const p: string[] = []
  if (!isStr(info.id) || !info.id.startsWith('ses')) p.push('info.id must start with "ses"')
  for (const k of ['slug', 'title', 'version', 'directory']) if (!isStr(info[k])) p.push(`info.${k} missing`)
  if (!isNum(info.time?.created) || !isNum(info.time?.updated)) p.push('info.time.created/updated missing')
  if (info.parentID !== undefined && (!isStr(info.parentID) || !info.parentID.startsWith('ses'))) p.push('info.parentID must start with "ses"')
  return p
}

function partProblems(part: Json, msgId: string, sesId: string): string[] {
  const p: string[] = []
  const at = `part ${String(part.id)}`
  if (!isStr(part.id) || !ID_SHAPE.test(part.id) || !part.id.startsWith('prt_')) p.push(`${at}: id is not a prt_ id`)
  if (part.sessionID !== sesId) p.push(`${at}: sessionID differs from the session`)
  if (part.messageID !== msgId) p.push(`${at}: messageID differs from its message`)
  switch (part.type) {
    case 'text':
      if (!isStr(part.text)) p.push(`${at}: text missing`)
      break
    case 'reasoning':
      if (!isStr(part.text) || !isNum(part.time?.start)) p.push(`${at}: reasoning needs text and time.start`)
      break
    case 'file':
      if (!isStr(part.mime) || !isStr(part.url)) p.push(`${at}: file needs mime and url`)
      break
    case 'tool': {
      if (!isStr(part.callID) || !isStr(part.tool) || !isObj(part.state)) {
        p.push(`${at}: tool needs callID, tool and state`)
        break
      }
      const s = part.state
      if (!isObj(s.input)) p.push(`${at}: state.input must be an object`)
      if (s.status === 'completed') {
        if (!isStr(s.output) || !isStr(s.title) || !isObj(s.metadata) || !isNum(s.time?.start) || !isNum(s.time?.end)) p.push(`${at}: completed state needs output, title, metadata, time`)
        if (s.attachments !== undefined) for (const a of s.attachments as Json[]) p.push(...partProblems(a, msgId, sesId))
      } else if (s.status === 'error') {
        if (!isStr(s.error) || !isNum(s.time?.start) || !isNum(s.time?.end)) p.push(`${at}: error state needs error and time`)
      } else if (s.status === 'pending') {
        if (!isStr(s.raw)) p.push(`${at}: pending state needs raw`)
      } else if (s.status !== 'running') p.push(`${at}: unknown tool status ${String(s.status)}`)
      break
    }
    default:
      if (!isStr(part.type)) p.push(`${at}: type missing`)
  }
  return p
}

/** Problems of one message given the session id and the ids of earlier user messages. */
export function messageProblems(m: ExportMessage, sesId: string, userIds: ReadonlySet<string>): string[] {
  const i = m.info
  const p: string[] = []
  const at = `message ${String(i.id)}`
  if (!isStr(i.id) || !ID_SHAPE.test(i.id) || !i.id.startsWith('msg_')) p.push(`${at}: id is not a msg_ id`)
  if (i.sessionID !== sesId) p.push(`${at}: sessionID differs from the session`)
  if (!isNum(i.time?.created)) p.push(`${at}: time.created missing`)
  if (!isStr(i.agent)) p.push(`${at}: agent missing`)
  if (i.role === 'user') {
    if (!isStr(i.model?.providerID) || !isStr(i.model?.modelID)) p.push(`${at}: model.providerID/modelID missing`)
  } else if (i.role === 'assistant') {
    if (!isStr(i.parentID) || !userIds.has(i.parentID)) p.push(`${at}: parentID must name an earlier user message`)
    for (const k of ['modelID', 'providerID', 'mode']) if (!isStr(i[k])) p.push(`${at}: ${k} missing`)
    if (!isStr(i.path?.cwd) || !isStr(i.path?.root)) p.push(`${at}: path.cwd/root missing`)
    if (!isNum(i.cost)) p.push(`${at}: cost missing`)
    const t = i.tokens
    if (!isNum(t?.input) || !isNum(t?.output) || !isNum(t?.reasoning) || !isNum(t?.cache?.read) || !isNum(t?.cache?.write)) p.push(`${at}: tokens incomplete`)
  } else p.push(`${at}: role must be user or assistant`)
  let last = ''
  for (const part of m.parts) {
    p.push(...partProblems(part, i.id, sesId))
    if (isStr(part.id)) {
      if (part.id <= last) p.push(`${at}: part ids do not increase (${part.id})`)
      last = part.id
    }
  }
  return p
}

/** Every problem of a whole document (tests and `--out` checks); [] when importable. */
export function documentProblems(doc: ExportDocument): string[] {
  if (!isObj(doc) || !isObj(doc.info) || !Array.isArray(doc.messages)) return ['not an export document ({info, messages})']
  const p = sessionInfoProblems(doc.info)
  const users = new Set<string>()
  let lastId = ''
  let lastTime = -Infinity
  for (const m of doc.messages) {
    if (!isObj(m) || !isObj(m.info) || !Array.isArray(m.parts)) {
      p.push('message without info/parts')
      continue
    }
    p.push(...messageProblems(m, doc.info.id, users))
    if (isStr(m.info.id)) {
      if (m.info.id <= lastId) p.push(`message ${m.info.id}: ids do not increase`)
      lastId = m.info.id
    }
    if (isNum(m.info.time?.created)) {
      if (m.info.time.created < lastTime) p.push(`message ${String(m.info.id)}: time.created goes backwards`)
      lastTime = m.info.time.created
    }
    if (m.info.role === 'user' && isStr(m.info.id)) users.add(m.info.id)
  }
  return p
}
