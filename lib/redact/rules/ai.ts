/** AI model providers: token formats as each provider documents them (prefix, alphabet, length). */
import { p, type Rule } from '../rule.js'

export const AI: Rule[] = [
  p('anthropic-key', ['sk-ant-'], String.raw`{L}(?<s>sk-ant-(?:api|admin|sid)[0-9]{2}-[A-Za-z0-9_\-]{80,})`),
  p('openrouter-key', ['sk-or-'], String.raw`{L}(?<s>sk-or-v1-[a-f0-9]{64}){R}`),
  p('openai-key', ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'T3BlbkFJ'], String.raw`{L}(?<s>sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,})`),
  p('xai-key', ['xai-'], String.raw`{L}(?<s>xai-[A-Za-z0-9]{70,}){R}`),
  p('groq-key', ['gsk_'], String.raw`{L}(?<s>gsk_[A-Za-z0-9]{48,}){R}`),
  p('huggingface-token', ['hf_'], String.raw`{L}(?<s>hf_[A-Za-z]{34}){R}`),
  p('replicate-token', ['r8_'], String.raw`{L}(?<s>r8_[A-Za-z0-9]{37}){R}`),
  p('perplexity-key', ['pplx-'], String.raw`{L}(?<s>pplx-[A-Za-z0-9]{48}){R}`),
  // Generic `sk-` keys (DeepSeek, Moonshot, older OpenAI): long random body only.
  p('api-key', ['sk-'], String.raw`{L}(?<s>sk-[A-Za-z0-9]{32,}){R}`, 3.5),
]
