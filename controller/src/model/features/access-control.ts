// Allow/deny lists by client address and the ConfigMap's block lists, with
// ingress-nginx v1.15.1's semantics (annotations ipallowlist/ipdenylist,
// ConfigMap whitelist-source-range, denylist-source-range, block-*; nginx.tmpl):
// - allowlist-source-range, or its alias whitelist-source-range when it is
//   empty or absent: `allow` each address or range, then `deny all` (403);
// - denylist-source-range: `deny` each, before the allow list;
// - the ConfigMap's whitelist-/denylist-source-range are the lists of every
//   location whose Ingress sets none;
// - block-cidrs: `deny` in every server (403), and also in each location with
//   lists of its own, where NGINX would otherwise drop it (a difference);
// - block-user-agents, block-referers: 403 in every server (features/block-patterns.ts).
// An invalid list refuses the Ingress (ingress-nginx's validator does); an
// allow or deny annotation set empty denies the location (503, ingress-nginx's
// "location denied"); an invalid ConfigMap list serves no Ingress: a list that
// cannot be read never leaves anything open.
// The client address is $remote_addr: realip's when the client-address settings
// trust a proxy (features/client-address.ts).

import { accept, type Checked } from '../checked.ts';
import type { AccessControlConfig } from '../types.ts';
import { parseBlockPatterns } from './block-patterns.ts';
import { defineFeature, field, type Draft, type FeatureKey } from './feature.ts';
import { parseAddressList } from './ip-ranges.ts';

const ALLOWLIST = 'allowlist-source-range';
const WHITELIST = 'whitelist-source-range';
const DENYLIST = 'denylist-source-range';

/** What the allow-list annotations gave so far (the two names are read in that order): private to the draft. */
const ALLOW_GIVEN: unique symbol = Symbol('allow list annotation');
/** An allow-list annotation was set empty (and the other gave no list): the location is denied. */
const EMPTY_ALLOW: unique symbol = Symbol('empty allow list annotation');
/** denylist-source-range was set empty: the location is denied. */
const EMPTY_DENY: unique symbol = Symbol('empty deny list annotation');
type ListDraft = Draft<AccessControlConfig> & { [ALLOW_GIVEN]?: true; [EMPTY_ALLOW]?: boolean; [EMPTY_DENY]?: true };

/** ingress-nginx's normalizeString: each line trimmed; "" is no value (and denies the location). */
function isEmpty(raw: string): boolean {
  return raw.split('\n').every((line) => /^[\t\n\v\f\r \u0085\u00a0]*$/u.test(line));
}

/** allowlist-source-range, and whitelist-source-range (used only when allowlist-source-range gave no list). */
function allowKey(name: typeof ALLOWLIST | typeof WHITELIST, doc: string): FeatureKey<AccessControlConfig> {
  return {
    annotation: { name, scope: 'location', risk: 'Medium' },
    defaultText: '',
    doc,
    invalid: 'fail',
    set(draft, raw) {
      const list = draft as ListDraft;
      // As ingress-nginx's alias lookup: a non-empty allowlist-source-range hides whitelist-source-range.
      if (list[ALLOW_GIVEN] === true) return null;
      if (isEmpty(raw)) {
        list[EMPTY_ALLOW] ??= true;
        return null;
      }
      const parsed = parseAddressList(raw);
      if (!parsed.ok) return { reason: parsed.reason, unsupported: parsed.unsupported === true };
      list.allow = parsed.value;
      list[ALLOW_GIVEN] = true;
      // The other name's empty value is no longer what ingress-nginx reads.
      list[EMPTY_ALLOW] = false;
      return null;
    },
  };
}

const denyKey: FeatureKey<AccessControlConfig> = {
  annotation: { name: DENYLIST, scope: 'location', risk: 'Medium' },
  defaultText: '',
  doc: 'Client addresses and ranges (comma-separated, IPv4 and IPv6) refused with 403 on these paths, checked before the allow list.',
  invalid: 'fail',
  set(draft, raw) {
    const list = draft as ListDraft;
    if (isEmpty(raw)) {
      list[EMPTY_DENY] = true;
      return null;
    }
    const parsed = parseAddressList(raw);
    if (!parsed.ok) return { reason: parsed.reason, unsupported: parsed.unsupported === true };
    list.deny = parsed.value;
    return null;
  },
};

/** A ConfigMap list of addresses and ranges: empty items dropped (splitAndTrimSpace), a bad item serves no Ingress. */
function configList<K extends 'allow' | 'deny' | 'blockCidrs'>(name: K, configKey: string, doc: string): FeatureKey<AccessControlConfig> {
  return field<AccessControlConfig, K>(name, (raw) => parseAddressList(raw, true), { configKey, defaultText: '', doc, failClosed: true });
}

/** The config without the draft's markers; denied when a list annotation was empty. */
function finish(config: AccessControlConfig): Checked<AccessControlConfig> {
  const draft = config as ListDraft;
  const denied = config.denied || draft[EMPTY_ALLOW] === true || draft[EMPTY_DENY] === true;
  return accept({
    allow: config.allow, deny: config.deny, denied,
    blockCidrs: config.blockCidrs, blockUserAgents: config.blockUserAgents, blockReferers: config.blockReferers,
  });
}

export const accessControlFeature = defineFeature({
  name: 'accessControl',
  title: 'Allow and deny lists, blocked clients',
  doc: 'Client address lists as ingress-nginx applies them: allowlist-source-range (or whitelist-source-range) lets only its '
    + 'addresses and ranges in (others get 403), denylist-source-range refuses its own first; the ConfigMap\'s lists apply to '
    + 'every Ingress that sets none. block-cidrs, block-user-agents and block-referers (ConfigMap) answer 403 in every server. '
    + 'The client address is $remote_addr: the connection\'s, or the one a trusted proxy names (use-forwarded-headers, use-proxy-protocol). An invalid list refuses the Ingress; a list annotation set empty '
    + 'answers 503 (ingress-nginx denies the location); an invalid ConfigMap list serves no Ingress. Never open by mistake.',
  output: { kind: 'location', template: 'features/access-control.njk' },
  defaults: { allow: Object.freeze([]), deny: Object.freeze([]), denied: false, blockCidrs: Object.freeze([]), blockUserAgents: Object.freeze([]), blockReferers: Object.freeze([]) },
  keys: [
    allowKey(ALLOWLIST, 'Client addresses and ranges (comma-separated, IPv4 and IPv6) allowed on these paths; anyone else gets 403.'),
    allowKey(WHITELIST, 'Old name of allowlist-source-range, read only when allowlist-source-range is empty or absent.'),
    denyKey,
    configList('allow', WHITELIST, 'Client addresses and ranges allowed on every path whose Ingress sets no allow list; an invalid list serves no Ingress.'),
    configList('deny', DENYLIST, 'Client addresses and ranges refused on every path whose Ingress sets no deny list; an invalid list serves no Ingress.'),
    {
      ...configList('blockCidrs', 'block-cidrs', 'Client addresses and ranges refused (403) in every server; an invalid list serves no Ingress.'),
      difference: 'also applies to paths with allow or deny lists of their own (in ingress-nginx their rules replace it)',
    },
    field<AccessControlConfig, 'blockUserAgents'>('blockUserAgents', parseBlockPatterns, {
      configKey: 'block-user-agents', defaultText: '', failClosed: true,
      doc: 'User-Agent values refused (403) in every server: comma-separated, each a whole string (case-insensitive), ~regex or ~*regex.',
      difference: 'a regex must compile alike in PCRE and JavaScript and pass the catastrophic-backtracking check; an item NGINX would misread (unquoted spaces or ;) serves no Ingress',
    }),
    field<AccessControlConfig, 'blockReferers'>('blockReferers', parseBlockPatterns, {
      configKey: 'block-referers', defaultText: '', failClosed: true,
      doc: 'Referer values refused (403) in every server: comma-separated, each a whole string (case-insensitive), ~regex or ~*regex.',
      difference: 'a regex must compile alike in PCRE and JavaScript and pass the catastrophic-backtracking check; an item NGINX would misread (unquoted spaces or ;) serves no Ingress',
    }),
  ],
  finish,
  proof: ['controller/src/model/features/access-control.test.ts', 'controller/src/model/features/ip-ranges.test.ts',
    'controller/src/model/features/block-patterns.test.ts', 'controller/src/render/access-values.test.ts', 'controller/src/render/access-nginx.test.ts', 'e2e/access-control.test.ts'],
});
