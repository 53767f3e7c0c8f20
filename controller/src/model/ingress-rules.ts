// One Ingress's rules → candidate locations. Each rule and each path is
// checked on its own: a bad host drops that rule, a bad path or backend drops
// that path, and the rest of the Ingress still serves (smaller blast radius).
// Placement (conflicts, oldest wins) happens later, in placement.ts.

import type { V1HTTPIngressPath, V1Ingress, V1IngressRule } from '@kubernetes/client-node';
import type { IngressFeatures } from './features/parse.ts';
import { checkIngressBackend, backendName, type ServiceRef } from './backend-ref.ts';
import { makeFailure, quoteValue } from './failure.ts';
import { checkRuleHost } from './names.ts';
import { resolvePath } from './paths.ts';
import { needsRewrite } from './regex-hosts.ts';
import { isNotChecked, newRegexCheckBudget, type RegexCheckBudget } from './regex-backtracking.ts';
import { routeFlags, routeKey } from './route-key.ts';
import type { Failure, GlobalSettings, IngressRef, Location } from './types.ts';

/** A location one Ingress asks for, not yet placed. */
export interface LocationCandidate {
  readonly host: string;
  readonly location: Location;
  readonly backend: ServiceRef;
  /** `spec.rules[i].http.paths[j]`, the prefix of every field this path's failures name. */
  readonly field: string;
}

/** What one Ingress's rules translate to. */
export interface RuleTranslation {
  /** Every valid rule host (lowercased; `_` for rule host ""), in rule order, without duplicates. */
  readonly hosts: readonly string[];
  readonly candidates: readonly LocationCandidate[];
  readonly failures: readonly Failure[];
}

function arrayOf<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

function translatePath(
  item: V1HTTPIngressPath,
  field: string,
  host: string,
  ingress: IngressRef,
  features: IngressFeatures,
  settings: GlobalSettings,
  regexBudget: RegexCheckBudget,
): LocationCandidate | Failure {
  const rewrite = features.policy.rewrite ?? settings.rewrite;
  // A rewrite-target equal to the path rewrites nothing: ingress-nginx leaves such a path plain (needsRewrite).
  const written = typeof item?.path === 'string' && item.path !== '' ? item.path : '/';
  const resolved = resolvePath(item?.path, item?.pathType, rewrite.useRegex || needsRewrite(rewrite.target, written), regexBudget);
  if (!resolved.ok) {
    const reason = isNotChecked(resolved.reason) ? 'RegexNotChecked' : 'InvalidPath';
    return makeFailure(ingress, reason, `${field}.path`, `path ${quoteValue(item?.path)} refused: ${resolved.reason}`);
  }
  const backend = checkIngressBackend(item?.backend, ingress.namespace);
  if (!backend.ok) {
    return makeFailure(ingress, 'InvalidBackend', `${field}.backend`, `backend of path ${quoteValue(item?.path)} refused: ${backend.reason}`);
  }
  const name = backendName(backend.value);
  const { path, match } = resolved.value;
  const key = routeKey(routeFlags(features.policy, settings), name, host, ingress, backend.value, path);
  const location: Location = { path, match, route: { kind: 'backend', backend: name, key }, ingress, policy: features.policy };
  return { host, location, backend: backend.value, field };
}

function isFailure(value: LocationCandidate | Failure): value is Failure {
  return 'reason' in value;
}

/** Translates the rules of a validated Ingress with its parsed features over the global settings. */
export function translateRules(ingress: V1Ingress, ref: IngressRef, features: IngressFeatures, settings: GlobalSettings): RuleTranslation {
  // A Set keeps rule order and makes the duplicate check O(1): an Ingress may hold 100k hosts.
  const hosts = new Set<string>();
  const candidates: LocationCandidate[] = [];
  const failures: Failure[] = [];
  const regexBudget = newRegexCheckBudget();
  arrayOf<V1IngressRule>(ingress.spec?.rules).forEach((rule, ruleIndex) => {
    const host = checkRuleHost(rule?.host);
    if (!host.ok) {
      failures.push(makeFailure(ref, 'InvalidHost', `spec.rules[${ruleIndex}].host`,
        `host ${quoteValue(rule?.host)} refused: ${host.reason}`));
      return;
    }
    hosts.add(host.value);
    arrayOf(rule?.http?.paths).forEach((item, pathIndex) => {
      const field = `spec.rules[${ruleIndex}].http.paths[${pathIndex}]`;
      const outcome = translatePath(item, field, host.value, ref, features, settings, regexBudget);
      if (isFailure(outcome)) failures.push(outcome);
      else candidates.push(outcome);
    });
  });
  // candidates at their length: the translation cache keeps them, and push() reserved 17 slots for one path.
  return { hosts: [...hosts], candidates: candidates.slice(), failures };
}
