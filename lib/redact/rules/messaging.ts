/** Chat, mail, webhooks and bots: token formats as each provider documents them (prefix, alphabet, length). */
import { p, rx, type Rule } from '../rule.js'

export const MESSAGING: Rule[] = [
  p('slack-token', ['xox'], String.raw`{L}(?<s>xox[abposer]-(?:[0-9]+-)?[0-9A-Za-z\-]{10,}|xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,})`),
  p('slack-token', ['xapp-'], String.raw`{L}(?<s>xapp-[0-9]-[A-Z0-9]{1,64}-[0-9]{1,32}-[a-z0-9]{1,256}){R}`),
  p('slack-webhook', ['hooks.slack.com'], String.raw`(?<s>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{30,})`),
  p('discord-webhook', ['/api/webhooks/'], String.raw`(?<s>https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]{60,})`),
  p('teams-webhook', ['webhook.office.com'], String.raw`(?<s>https://[a-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@\-/]{40,}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9\-]{36}(?:/[A-Za-z0-9_\-]+)?)`),
  // In the Bot API's URL path (`api.telegram.org/bot<token>/getMe`, `/file/bot<token>/…`) the token needs no `AA`.
  p('telegram-bot-token', ['telegram.org/'], String.raw`telegram\.org/(?:file/)?bot(?<s>[0-9]{5,12}:[A-Za-z0-9_\-]{30,50})(?![A-Za-z0-9_\-])`),
  p('telegram-bot-token', [':AA'], String.raw`{L}(?<s>[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}){R}`),
  p('sendgrid-key', ['SG.'], String.raw`{L}(?<s>SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}){R}`),
  p('mailgun-key', ['key-'], String.raw`{L}(?<s>key-[a-f0-9]{32}){R}`),
  { kind: 'mailchimp-key', keywords: ['-us'], re: rx(String.raw`-us[0-9]{1,2}{R}`), back: 32, backRe: /^[a-f0-9]{32}$/ },
  p('twilio-key', ['SK'], String.raw`{L}(?<s>SK[0-9a-f]{32}){R}`),
  p('postman-key', ['PMAK-'], String.raw`{L}(?<s>PMAK-[a-f0-9]{24}-[a-f0-9]{34}){R}`),
  // Discord bot tokens: base64 of the numeric bot id, a 6-character timestamp, an HMAC.
  p('discord-bot-token', ['MT', 'MD', 'Mj', 'Mz', 'ND', 'NT', 'Nj', 'Nz', 'OD', 'OT'], String.raw`{L}(?<s>(?:M[DTjz]|N[DTjz]|O[DT])[A-Za-z0-9]{21,26}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}){R}`),
]
