/**
 * The price table ferry ships: US dollars per million tokens, as the providers list them on the
 * date below. Data only; `prices.ts` looks models up in it. A model not here has no price (it is
 * listed, never counted as free); `ferry stats --prices FILE` adds or overrides entries.
 *
 * Sources: anthropic.com/pricing, openai.com/api/pricing, ai.google.dev/pricing, docs.x.ai models
 * page, cross-checked against LiteLLM's model_prices_and_context_window.json (the table ccusage
 * embeds) on the same date. Long-context surcharges (above 200k input tokens) are not modelled.
 */
export interface ModelPrice {
  /** Uncached input. */
  input: number
  output: number
  /** Reading a cached prefix. */
  cache_read?: number
  /** Writing the cache (Anthropic's 5-minute cache write). */
  cache_write?: number
}

export interface PriceTable {
  /** The day the prices were read (YYYY-MM-DD). */
  date: string
  models: Record<string, ModelPrice>
}

export const PINNED_PRICES: PriceTable = {
  date: '2026-12-01',
  models: {
    'claude-opus-4-5': { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
    'claude-opus-4-1': { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
    'claude-opus-4': { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
    'claude-sonnet-4-5': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    'claude-sonnet-4': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    'claude-3-7-sonnet': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    'claude-3-5-sonnet': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    'claude-haiku-4-5': { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
    'claude-3-5-haiku': { input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 },
    'gpt-5.5': { input: 5, output: 30, cache_read: 0.5 },
    'gpt-5.1-codex-max': { input: 1.25, output: 10, cache_read: 0.125 },
    'gpt-5.1-codex-mini': { input: 0.25, output: 2, cache_read: 0.025 },
    'gpt-5.1-codex': { input: 1.25, output: 10, cache_read: 0.125 },
    'gpt-5.1': { input: 1.25, output: 10, cache_read: 0.125 },
    'gpt-5-codex': { input: 1.25, output: 10, cache_read: 0.125 },
    'gpt-5-mini': { input: 0.25, output: 2, cache_read: 0.025 },
    'gpt-5-nano': { input: 0.05, output: 0.4, cache_read: 0.005 },
    'gpt-5': { input: 1.25, output: 10, cache_read: 0.125 },
    'gpt-4.1': { input: 2, output: 8, cache_read: 0.5 },
    'o3': { input: 2, output: 8, cache_read: 0.5 },
    'o4-mini': { input: 1.1, output: 4.4, cache_read: 0.275 },
    'gemini-2.5-pro': { input: 1.25, output: 10, cache_read: 0.125 },
    'gemini-2.5-flash': { input: 0.3, output: 2.5, cache_read: 0.03 },
    'grok-code-fast-1': { input: 0.2, output: 1.5, cache_read: 0.02 },
    'grok-4': { input: 3, output: 15, cache_read: 0.75 },
  },
}
