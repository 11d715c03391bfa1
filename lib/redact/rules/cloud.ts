/** Cloud providers and infrastructure platforms: token formats as each provider documents them (prefix, alphabet, length). */
import { p, rx, type Rule } from '../rule.js'

export const CLOUD: Rule[] = [
  p('aws-access-key', ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], String.raw`{L}(?<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}){R}`, 2.5),
  {
    kind: 'aws-secret-key',
    keywords: ['aws', 'AWS', 'Aws'],
    re: rx(String.raw`(?:aws|AWS|Aws)[A-Za-z0-9_.\- ]{0,30}?(?:secret|SECRET|Secret)[A-Za-z0-9_.\-]{0,20}(?:\\?["'])?\s*(?:[:=]|=>|\s)\s*(?:\\?["'])?(?<s>[A-Za-z0-9/+]{40}){R}`),
    entropy: 3.5,
  },
  // STS session tokens: the documented examples all begin with one of these encoded headers.
  p('aws-session-token', ['IQoJb3JpZ2lu', 'FwoGZXIvYXdz', 'AQoDYXdz', 'AQoEXAMPLE'], String.raw`{L}(?<s>(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE|AQoDYXdzE)[A-Za-z0-9+/]{100,}={0,2})`),
  p('gcp-api-key', ['AIza'], String.raw`{L}(?<s>AIza[0-9A-Za-z_\-]{35}){R}`),
  p('gcp-oauth-secret', ['GOCSPX-'], String.raw`(?<s>GOCSPX-[A-Za-z0-9_\-]{28}){R}`),
  p('gcp-access-token', ['ya29.'], String.raw`{L}(?<s>ya29\.[0-9A-Za-z_\-]{30,})`),
  p('azure-storage-key', ['AccountKey='], String.raw`AccountKey=(?<s>[A-Za-z0-9+/]{86}==)`),
  p('azure-ad-secret', ['Q~'], String.raw`{L}(?<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}){R}`),
  p('alibaba-access-key', ['LTAI'], String.raw`{L}(?<s>LTAI[A-Za-z0-9]{20}){R}`),
  p('digitalocean-token', ['_v1_'], String.raw`{L}(?<s>do[opr]_v1_[a-f0-9]{64}){R}`),
  p('databricks-token', ['dapi'], String.raw`{L}(?<s>dapi[a-f0-9]{32}(?:-[0-9])?){R}`),
  p('heroku-token', ['HRKU-'], String.raw`{L}(?<s>HRKU-[A-Za-z0-9_\-]{60}){R}`),
  p('flyio-token', ['fm1_', 'fm2_', 'FlyV1'], String.raw`{L}(?<s>(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})`),
  p('vault-token', ['hvs.', 'hvb.'], String.raw`{L}(?<s>hv[sb]\.[A-Za-z0-9_\-]{90,})`),
  { kind: 'terraform-token', keywords: ['.atlasv1.'], re: rx(String.raw`\.atlasv1\.[A-Za-z0-9_=\-]{60,70}{R}`), back: 14, backRe: /^[A-Za-z0-9]{14}$/ },
  p('pulumi-token', ['pul-'], String.raw`{L}(?<s>pul-[a-f0-9]{40}){R}`),
  p('doppler-token', ['dp.pt.'], String.raw`{L}(?<s>dp\.pt\.[A-Za-z0-9]{43}){R}`),
  p('supabase-token', ['sbp_'], String.raw`{L}(?<s>sbp_[a-f0-9]{40}){R}`),
  p('planetscale-token', ['pscale_'], String.raw`{L}(?<s>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}){R}`),
]
