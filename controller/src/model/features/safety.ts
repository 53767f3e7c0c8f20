// ingress-nginx's safeguards as ConfigMap keys (they are in nearly every
// ingress-nginx values file, from its chart's defaults). resty-ingress has
// them built in and always on: snippets are never rendered, every value
// passes a strict grammar, regex characters need ImplementationSpecific. So
// the safe value of each key is what we do; the unsafe one is refused with a
// clear failure (the default, i.e. the safeguard, stays).

import { accept, unsupported, type Checked } from '../checked.ts';
import type { SafetySettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

const RISK_LEVELS = ['Critical', 'High', 'Medium', 'Low'] as const;

function onlyFalse(what: string): (raw: string) => Checked<false> {
  return (raw) => {
    const parsed = parseBoolean(raw.trim());
    if (!parsed.ok) return parsed;
    return parsed.value ? unsupported(`${what} cannot be turned on`) : accept(false);
  };
}

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
  const level = RISK_LEVELS.find((word) => word.toLowerCase() === raw.toLowerCase()) ?? 'Low';
  // Critical would allow the snippet annotations, which are never rendered here.
  return level === 'Critical' ? unsupported('snippet annotations (Critical) are never allowed') : accept(level);
}

export const safetyFeature = defineFeature({
  name: 'safety',
  title: 'Annotation safeguards',
  doc: 'ingress-nginx\'s post-CVE safeguards are always on here: snippet annotations are refused, every annotation '
    + 'value passes a strict grammar, and regex characters need pathType ImplementationSpecific with use-regex. '
    + 'These keys accept their safe values; an unsafe value is refused (logged, Event) and the safeguard stays.',
  output: { kind: 'global' },
  defaults: { allowSnippets: false, riskLevel: 'High', strictPathType: true },
  keys: [
    field<SafetySettings, 'allowSnippets'>('allowSnippets', onlyFalse('snippet annotations'), {
      configKey: 'allow-snippet-annotations', defaultText: 'false', doc: 'Snippet annotations (*-snippet) are refused.',
      difference: 'only "false": snippets are never rendered',
    }),
    field<SafetySettings, 'riskLevel'>('riskLevel', parseRiskLevel, {
      configKey: 'annotations-risk-level', defaultText: 'High',
      doc: 'The highest annotation risk accepted: an Ingress with an annotation rated above it (ingress-nginx\'s ratings) is not served. '
        + 'Any case; a word other than Critical, High, Medium or Low means Low, as in ingress-nginx.',
      difference: 'Critical (snippets) is refused',
    }),
    field<SafetySettings, 'strictPathType'>('strictPathType', onlyTrue('strict path validation'), {
      configKey: 'strict-validate-path-type', defaultText: 'true', doc: 'Regex characters in a path need ImplementationSpecific.',
      difference: 'only "true"',
    }),
  ],
  proof: ['controller/src/model/features/safety.test.ts'],
});
