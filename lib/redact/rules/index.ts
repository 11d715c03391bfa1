/**
 * The provider and shape rules, in priority order (on the same span an
 * earlier rule's kind wins). The provider list follows gitleaks' default rule
 * set as a checklist; patterns are written from the providers' documented
 * token formats (see lib/redact/README.md). Detectors that need more than a
 * regex live next to this folder: keyword context (`keyword.ts`), URLs
 * (`url.ts`), config formats (`structural.ts`), base64 payloads (`base64.ts`).
 */
import type { Rule } from '../rule.js'
import { AI } from './ai.js'
import { CLOUD } from './cloud.js'
import { COMMERCE } from './commerce.js'
import { MESSAGING } from './messaging.js'
import { SAAS } from './saas.js'
import { SHAPES } from './shapes.js'
import { VCS } from './vcs.js'

export const PROVIDER_RULES: Rule[] = [SHAPES[0]!, ...CLOUD, ...VCS, ...AI, ...COMMERCE, ...MESSAGING, ...SAAS, ...SHAPES.slice(1)]
