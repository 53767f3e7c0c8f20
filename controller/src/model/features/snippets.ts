// The snippet keys, as ingress-nginx v1.15.1 places them: configuration-snippet
// in each location of its Ingress, server-snippet in the server of each of its
// hosts, and the ConfigMap's main-, http-, server- and location-snippet in the
// main context, http {}, every server and every location. The annotations are
// read only when the ConfigMap allows snippets (snippet-gate.ts); the
// ConfigMap's are the operator's and need no consent, as in ingress-nginx.
// Every snippet is read as NGINX reads it and refused when it breaks a rule
// (snippet-rules.ts: load_module, *_by_lua*, lua_*, include, /etc,
// /var/run/secrets, ..); what reaches nginx.conf is rebuilt from its tokens.

import { accept, refuse, type Checked } from '../checked.ts';
import type { SnippetsConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { checkSnippet } from './snippet-rules.ts';

function parseSnippet(raw: string): Checked<readonly string[]> {
  const checked = checkSnippet(raw);
  return checked.ok ? accept(checked.value) : refuse(`snippet refused: ${checked.reason}`);
}

const RULES = 'Read as NGINX reads it; refused if it uses load_module, *_by_lua*, lua_*, include, a path under /etc or /var/run/secrets, or a .. segment.';
/** The ConfigMap's snippets: the operator's. */
const OPERATOR = 'The operator\'s: needs no allow-snippet-annotations, as in ingress-nginx; a refused one is ignored with a Warning.';

export const snippetsFeature = defineFeature({
  name: 'snippets',
  title: 'Snippets',
  doc: 'Raw NGINX directives. The annotations need the ConfigMap\'s allow-snippet-annotations "true" and annotations-risk-level '
    + 'Critical; otherwise an Ingress carrying one is not served (Event, admission denial). An allowed snippet is still read as '
    + 'NGINX reads it and refused (the Ingress is not served; a ConfigMap snippet is ignored) when it uses load_module, '
    + '*_by_lua*, lua_*, include, a path under /etc or /var/run/secrets, or a .. segment: the denial names the rule. '
    + 'Comments are dropped and one directive is printed per line. When `nginx -t` fails on a snippet line, that Ingress is left out and the others are applied.',
  output: { kind: 'location', template: 'features/snippets.njk' },
  defaults: { configuration: [], server: [], auth: [], main: [], http: [], everyServer: [], everyLocation: [] },
  keys: [
    field<SnippetsConfig, 'configuration'>('configuration', parseSnippet, {
      annotation: { name: 'configuration-snippet', scope: 'location', risk: 'Critical' }, defaultText: '',
      doc: `Directives printed in each location of the Ingress, after the other features' directives. ${RULES}`,
    }),
    field<SnippetsConfig, 'server'>('server', parseSnippet, {
      annotation: { name: 'server-snippet', scope: 'ingress', risk: 'Critical' }, defaultText: '',
      doc: `Directives printed in the server of each host of the Ingress. ${RULES}`,
      difference: 'when several Ingresses of a host set one, each is printed (ingress-nginx keeps the oldest Ingress\'s); a clash fails nginx -t on the later one, which is then left out',
    }),
    field<SnippetsConfig, 'auth'>('auth', parseSnippet, {
      annotation: { name: 'auth-snippet', scope: 'location', risk: 'Critical' }, defaultText: '',
      doc: `Directives printed in the external auth location (auth-url, or the ConfigMap's global-auth-url) of the Ingress's locations, before its proxy_pass; without external auth, a Warning. ${RULES}`,
      difference: 'the auth location of a location with an auth-snippet is its own (ingress-nginx builds one per location anyway)',
    }),
    field<SnippetsConfig, 'main'>('main', parseSnippet, {
      configKey: 'main-snippet', defaultText: '', doc: `Directives printed in the main context. ${RULES} ${OPERATOR}`,
    }),
    field<SnippetsConfig, 'http'>('http', parseSnippet, {
      configKey: 'http-snippet', defaultText: '', doc: `Directives printed in http {}. ${RULES} ${OPERATOR}`,
    }),
    field<SnippetsConfig, 'everyServer'>('everyServer', parseSnippet, {
      configKey: 'server-snippet', defaultText: '', doc: `Directives printed in every server. ${RULES} ${OPERATOR}`,
    }),
    field<SnippetsConfig, 'everyLocation'>('everyLocation', parseSnippet, {
      configKey: 'location-snippet', defaultText: '', doc: `Directives printed in every location. ${RULES} ${OPERATOR}`,
    }),
  ],
  proof: [
    'controller/src/model/features/snippet-rules.test.ts', 'controller/src/model/features/snippets.test.ts',
    'controller/src/render/snippets-render.test.ts', 'e2e/snippets.test.ts',
  ],
});
