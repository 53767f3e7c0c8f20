// proxy-next-upstream, -timeout and -tries: when NGINX gives a failed try to
// another endpoint, per location, with ConfigMap keys of the same names as the
// global values (printed once in http {}; a location prints only what its
// Ingress changes). The Lua balancer asks NGINX for one try per endpoint and
// NGINX lowers that to proxy_next_upstream_tries, so tries 1 means no retry
// (lua/resty_ingress/balancer.lua, lua/next-upstream.test.ts).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { NextUpstreamConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseSeconds } from './values.ts';

/** NGINX's proxy_next_upstream words: what ingress-nginx's validator allows too. */
const CONDITIONS: ReadonlySet<string> = new Set([
  'error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504', 'http_403', 'http_404', 'http_429',
  'non_idempotent', 'off',
]);
const CONDITION_ALTERNATION = [...CONDITIONS].join('|');
/** ingress-nginx's validUpstreamAnnotation: words each followed by at most one white space; they may touch. */
const INGRESS_NGINX_GRAMMAR = new RegExp(`^((${CONDITION_ALTERNATION})[ \\t\\f]?)+$`, 'u');
/** What NGINX reads as the same list: words separated by one white space each, one allowed at the end. */
const WORDS = new RegExp(`^(${CONDITION_ALTERNATION})([ \\t\\f](${CONDITION_ALTERNATION}))*[ \\t\\f]?$`, 'u');

/** A week, as the proxy timeouts: far below NGINX's own limit. */
const MAX_TIMEOUT_SECONDS = 604_800;
/** More tries than any Service has endpoints to retry on; NGINX itself takes far more. */
const MAX_TRIES = 100;

function parseConditions(raw: string): Checked<readonly string[]> {
  if (WORDS.test(raw)) {
    const words = [...new Set(raw.split(/[ \t\f]/u).filter((word) => word !== ''))];
    // NGINX ignores every other condition next to `off`.
    return accept(Object.freeze(words.includes('off') ? ['off'] : words));
  }
  // ingress-nginx lets words touch ("errortimeout"), which NGINX refuses.
  if (INGRESS_NGINX_GRAMMAR.test(raw)) return unsupported('NGINX needs the conditions separated by spaces');
  return refuse('expected NGINX conditions (error, timeout, http_502, non_idempotent, off…) separated by single spaces');
}

function parseTries(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  if (read < 0n || read > BigInt(MAX_TRIES)) return unsupported(`expected 0 (no limit) to ${MAX_TRIES} tries`);
  return accept(Number(read));
}

function parseTimeout(raw: string): Checked<number> {
  return parseSeconds(raw, 0, MAX_TIMEOUT_SECONDS);
}

export const nextUpstreamFeature = defineFeature({
  name: 'nextUpstream',
  title: 'Retrying on the next endpoint',
  doc: 'proxy_next_upstream, proxy_next_upstream_timeout and proxy_next_upstream_tries per location; the ConfigMap keys of the '
    + 'same names set the global values. A retry goes to an endpoint of the same backend not tried yet; tries counts the first '
    + 'try (1 = never retry), 0 = each endpoint once. As in ingress-nginx, an annotation value that does not parse is ignored '
    + 'with a warning and the global value applies. A POST is retried only with non_idempotent, as NGINX does.',
  output: { kind: 'location', template: 'features/next-upstream.njk' },
  defaults: { conditions: Object.freeze(['error', 'timeout']), timeout: 0, tries: 3 },
  keys: [
    field<NextUpstreamConfig, 'conditions'>('conditions', parseConditions, {
      annotation: { name: 'proxy-next-upstream', scope: 'location', risk: 'Medium' },
      configKey: 'proxy-next-upstream',
      defaultText: 'error timeout',
      doc: `Which failures are retried: words of ${[...CONDITIONS].join(', ')}, separated by spaces.`,
      invalid: 'ignore',
    }),
    field<NextUpstreamConfig, 'timeout'>('timeout', parseTimeout, {
      annotation: { name: 'proxy-next-upstream-timeout', scope: 'location', risk: 'Low' },
      configKey: 'proxy-next-upstream-timeout',
      defaultText: '0',
      doc: `How long, in whole seconds, a request may be passed on to the next endpoint (0 = no limit, at most ${MAX_TIMEOUT_SECONDS}).`,
      difference: 'at most a week (ingress-nginx takes any integer, NGINX refuses negative ones): other integers refuse the Ingress',
      invalid: 'ignore',
    }),
    field<NextUpstreamConfig, 'tries'>('tries', parseTries, {
      annotation: { name: 'proxy-next-upstream-tries', scope: 'location', risk: 'Low' },
      configKey: 'proxy-next-upstream-tries',
      defaultText: '3',
      doc: `Tries per request, the first included (1 = no retry, 0 = each endpoint once, at most ${MAX_TRIES}).`,
      difference: `at most ${MAX_TRIES}, and 0 tries each endpoint once where ingress-nginx's balancer retries without end`,
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/next-upstream.test.ts', 'lua/next-upstream.test.ts', 'controller/src/render/golden.test.ts', 'e2e/upstream-selection.test.ts'],
});
