/** Observability and SaaS: token formats as each provider documents them (prefix, alphabet, length). */
import { p, type Rule } from '../rule.js'

export const SAAS: Rule[] = [
  p('newrelic-key', ['NRAK-', 'NRII-'], String.raw`{L}(?<s>NR(?:AK|II)-[A-Z0-9]{27}){R}`),
  p('grafana-token', ['glc_', 'glsa_'], String.raw`{L}(?<s>glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`),
  p('sentry-token', ['sntrys_', 'sntryu_'], String.raw`{L}(?<s>sntrys_eyJ[A-Za-z0-9+/=_\-]{60,}|sntryu_[a-f0-9]{64})`),
  p('linear-key', ['lin_api_'], String.raw`{L}(?<s>lin_api_[A-Za-z0-9]{40}){R}`),
  p('notion-token', ['ntn_', 'secret_'], String.raw`{L}(?<s>ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}){R}`, 3.5),
  p('airtable-token', ['pat'], String.raw`{L}(?<s>pat[A-Za-z0-9]{14}\.[a-f0-9]{64}){R}`),
  p('figma-token', ['figd_'], String.raw`{L}(?<s>figd_[A-Za-z0-9_\-]{40}){R}`),
  p('mapbox-token', ['sk.eyJ'], String.raw`{L}(?<s>sk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,})`),
  p('onepassword-token', ['ops_eyJ'], String.raw`{L}(?<s>ops_eyJ[A-Za-z0-9+/=_\-]{100,})`),
  p('age-secret-key', ['AGE-SECRET-KEY-1'], String.raw`(?<s>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`),
]
