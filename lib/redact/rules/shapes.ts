/** Tokens recognised by shape: PEM private keys, JWTs, Authorization header schemes. */
import { p, rx, type Rule } from '../rule.js'
import { findPem } from '../pem.js'
import { isPlaceholder } from '../placeholder.js'

export const SHAPES: Rule[] = [
  // First: a PEM body would otherwise be seen as base64 noise. Found in code, linearly.
  { kind: 'private-key', keywords: ['PRIVATE KEY'], re: /(?!)/g, find: findPem, noPlaceholderCheck: true },
  p('jwt', ['eyJ'], String.raw`{L}(?<s>eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})`),
  {
    kind: 'basic-auth',
    keywords: ['Basic '],
    re: rx(String.raw`[Aa]uthorization\\*["']?:?\s*(?:\\*["'])?\s*Basic\s+(?<s>[A-Za-z0-9+/]{12,}={0,2})`),
    entropy: 3,
    noPlaceholderCheck: true,
  },
  {
    kind: 'bearer-token',
    keywords: ['Bearer ', 'bearer '],
    re: rx(String.raw`[Bb]earer\s+(?<s>[A-Za-z0-9_\-.~+/]{20,}={0,2})`),
    entropy: 3.5,
    check: (s) => !isPlaceholder(s),
  },
  // Other Authorization schemes that carry a bare token: GitHub `token`, Okta `SSWS`, Discord `Bot`.
  {
    kind: 'auth-header',
    keywords: ['uthorization'],
    re: rx(String.raw`[Aa]uthorization\\*["']?:\s*(?:\\*["'])?\s*(?:token|Token|SSWS|Bot|ApiKey|Api-Key|Key|Splunk|GenieKey|DeepL-Auth-Key)\s+(?<s>[A-Za-z0-9_\-.~+/:]{16,}={0,2})`),
    entropy: 3,
  },
]
