/** Payments and commerce: token formats as each provider documents them (prefix, alphabet, length). */
import { p, type Rule } from '../rule.js'

export const COMMERCE: Rule[] = [
  p('stripe-key', ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'], String.raw`{L}(?<s>(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/=]{32,})){R}`),
  p('square-token', ['sq0atp-', 'sq0csp-', 'EAAA'], String.raw`{L}(?<s>sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{60}){R}`),
  p('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], String.raw`{L}(?<s>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}){R}`),
  p('braintree-token', ['access_token$production$'], String.raw`(?<s>access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32})`),
]
