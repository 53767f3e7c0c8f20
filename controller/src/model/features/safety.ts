// ingress-nginx's safeguards as ConfigMap keys (they are in nearly every
// ingress-nginx values file, from its chart's defaults). Snippet annotations
// are read only when allow-snippet-annotations is "true" AND
// annotations-risk-level is Critical (features/snippets.ts), and even then
// pass the snippet rules; annotation-value-word-blocklist refuses Ingresses
// (word-blocklist.ts). strict-validate-path-type is built in and always on:
// its unsafe value is refused with a clear failure (the safeguard stays).

import { accept, unsupported, type Checked } from '../checked.ts';
import type { SafetySettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';
import { parseWordBlocklist } from './word-blocklist.ts';

const RISK_LEVELS = ['Critical', 'High', 'Medium', 'Low'] as const;

function onlyTrue(what: string): (raw: string) => Checked<true> {
  return (raw) => {
    const parsed = parseBoolean(raw.trim());
    if (!parsed.ok) return parsed;
    return parsed.value ? accept(true) : unsupported(`${what} cannot be turned off`);
  };
}

/**
 * As ingress-nginx's StringRiskToRisk reads it: any case, untrimmed; a word it does not know is
 * Low, the most restrictive (the Ingresses it refuses say so in their failures).
 */
function parseRiskLevel(raw: string): Checked<SafetySettings['riskLevel']> {
  return accept(RISK_LEVELS.find((word) => word.toLowerCase() === raw.toLowerCase()) ?? 'Low');
}

export const safetyFeature = defineFeature({
  name: 'safety',
  title: 'Annotation safeguards',
  doc: 'ingress-nginx\'s post-CVE safeguards: snippet annotations are read only with allow-snippet-annotations "true" '
    + 'and annotations-risk-level Critical (and still pass the snippet rules), an annotation rated above the risk level '
    + 'refuses its Ingress, annotation-value-word-blocklist refuses an Ingress whose annotation value holds a listed word, '
    + 'every annotation value passes a strict grammar, and regex characters need pathType ImplementationSpecific with use-regex.',
  output: { kind: 'global' },
  defaults: { allowSnippets: false, riskLevel: 'High', strictPathType: true, wordBlocklist: [] },
  keys: [
    field<SafetySettings, 'allowSnippets'>('allowSnippets', (raw) => parseBoolean(raw.trim()), {
      configKey: 'allow-snippet-annotations', defaultText: 'false',
      doc: 'Read the snippet annotations (configuration-snippet, server-snippet); they also need annotations-risk-level Critical.',
      difference: 'while snippets are not allowed, an Ingress carrying one is not served (ingress-nginx serves it without the snippet, and its admission denies it)',
    }),
    field<SafetySettings, 'riskLevel'>('riskLevel', parseRiskLevel, {
      configKey: 'annotations-risk-level', defaultText: 'High',
      doc: 'The highest annotation risk accepted: an Ingress with an annotation rated above it (ingress-nginx\'s ratings) is not served. '
        + 'Any case; a word other than Critical, High, Medium or Low means Low, as in ingress-nginx.',
    }),
    field<SafetySettings, 'strictPathType'>('strictPathType', onlyTrue('strict path validation'), {
      configKey: 'strict-validate-path-type', defaultText: 'true', doc: 'Regex characters in a path need ImplementationSpecific.',
      difference: 'only "true"',
    }),
    field<SafetySettings, 'wordBlocklist'>('wordBlocklist', parseWordBlocklist, {
      configKey: 'annotation-value-word-blocklist', defaultText: '""', failClosed: true,
      doc: 'Comma-separated words: an Ingress with an annotation (under the prefix) whose value contains one is not served (Event, admission denial).',
      difference: 'each word is trimmed and an empty word is dropped (ingress-nginx\'s controller matches an empty word in every value)',
    }),
  ],
  proof: ['controller/src/model/features/safety.test.ts', 'controller/src/model/features/snippets.test.ts', 'controller/src/admission/admission-snippets.test.ts', 'e2e/snippets.test.ts'],
});
