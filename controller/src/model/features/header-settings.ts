// Headers set for every request and response, and how NGINX reads request
// header names (ConfigMap only), as ingress-nginx v1.15.1's nginx.tmpl:
// - proxy-set-headers / add-headers name a ConfigMap `namespace/name` whose
//   data are headers (model/header-configmaps.ts reads it on every build; the
//   controller watches it by name). proxy-set-headers end the header list of
//   every proxied location; add-headers are added to every response, NGINX's
//   own answers included;
// - hide-headers: proxy_hide_header for each name;
// - enable-underscores-in-headers / ignore-invalid-headers: NGINX's
//   underscores_in_headers / ignore_invalid_headers in http {};
// - server-tokens: NGINX's server_tokens.
// The data plane has no headers-more module, so add-headers are add_header
// lines (`always`) after a proxy_hide_header of the same name (the backend's
// header is replaced, as more_set_headers does), and server-tokens false
// keeps NGINX's `Server: nginx` (ingress-nginx clears the header).

import { accept, refuse, type Checked } from '../checked.ts';
import { isHeaderName } from '../header-configmaps.ts';
import type { HeaderSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseObjectReference } from './object-ref.ts';
import { parseBoolean } from './values.ts';

const MAX_HIDDEN = 100;

/** `namespace/name` of a ConfigMap; an empty value names none. */
function parseConfigMapRef(raw: string): Checked<string | null> {
  if (raw.trim() === '') return accept(null);
  return parseObjectReference(raw, false);
}

/** hide-headers: a comma-separated list of header names (blanks around items and empty items dropped, as ingress-nginx's splitAndTrimSpace). */
export function parseHeaderList(raw: string): Checked<readonly string[]> {
  const names = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (names.length > MAX_HIDDEN) return refuse(`expected at most ${MAX_HIDDEN} header names`);
  const bad = names.find((name) => !isHeaderName(name));
  if (bad !== undefined) return refuse('expected comma-separated HTTP header names (token characters, no "$", at most 128)');
  return accept(Object.freeze([...new Set(names)]));
}

export const headerSettingsFeature = defineFeature({
  name: 'headerSettings',
  title: 'Custom headers and header parsing',
  doc: 'Headers every backend receives (proxy-set-headers) and every client receives (add-headers), each from a ConfigMap '
    + '`namespace/name` whose keys are header names and values their values (NGINX variables such as ${msec} are expanded); '
    + 'backend response headers hidden from clients (hide-headers); how request header names are read '
    + '(enable-underscores-in-headers, ignore-invalid-headers) and whether NGINX shows its version (server-tokens). '
    + 'A ConfigMap of headers is watched by name (grant it with the chart\'s rbac.referencedConfigMaps): an edit applies at once '
    + '(a reload; ingress-nginx waits for its next one). '
    + 'A missing ConfigMap, or an entry whose name or value is refused, is logged and reported as an Event; the rest is served.',
  output: { kind: 'global' },
  defaults: {
    proxySetHeadersConfigMap: null, addHeadersConfigMap: null, proxySetHeaders: Object.freeze([]), addHeaders: Object.freeze([]),
    hideHeaders: Object.freeze([]), underscoresInHeaders: false, ignoreInvalidHeaders: true, serverTokens: false,
  },
  keys: [
    field<HeaderSettings, 'proxySetHeadersConfigMap'>('proxySetHeadersConfigMap', parseConfigMapRef, {
      configKey: 'proxy-set-headers', defaultText: '(none)',
      doc: 'ConfigMap namespace/name of headers sent to every backend, after the controller\'s own (gRPC too, as grpc_set_header).',
      difference: 'names and values validated (token names; printable values whose $ starts a known variable); a header the controller '
        + 'sends itself (Host, X-Forwarded-*, X-Request-ID, …) is refused with a warning: ingress-nginx sends it twice',
    }),
    field<HeaderSettings, 'addHeadersConfigMap'>('addHeadersConfigMap', parseConfigMapRef, {
      configKey: 'add-headers', defaultText: '(none)',
      doc: 'ConfigMap namespace/name of headers added to every response (replacing a proxied backend\'s header of the same name).',
      difference: 'add_header instead of headers-more: a FastCGI or gRPC backend\'s header of the same name is kept beside ours; names and values validated',
    }),
    field<HeaderSettings, 'hideHeaders'>('hideHeaders', parseHeaderList, {
      configKey: 'hide-headers', defaultText: '(none)',
      doc: 'Comma-separated backend response headers not passed to the client (proxy_hide_header; not for gRPC or FastCGI backends, as ingress-nginx).',
    }),
    field<HeaderSettings, 'underscoresInHeaders'>('underscoresInHeaders', parseBoolean, {
      configKey: 'enable-underscores-in-headers', defaultText: 'false',
      doc: 'Accept request header names with underscores (otherwise NGINX drops such headers).',
    }),
    field<HeaderSettings, 'ignoreInvalidHeaders'>('ignoreInvalidHeaders', parseBoolean, {
      configKey: 'ignore-invalid-headers', defaultText: 'true',
      doc: 'Drop request headers whose names are not valid; false: pass them on.',
    }),
    field<HeaderSettings, 'serverTokens'>('serverTokens', parseBoolean, {
      configKey: 'server-tokens', defaultText: 'false',
      doc: 'Show the NGINX version in the Server header and error pages.',
      difference: 'false keeps `Server: nginx` (no version): ingress-nginx also clears the Server header with headers-more, which the data plane lacks',
    }),
  ],
  proof: ['controller/src/model/features/header-settings.test.ts', 'controller/src/model/header-configmaps.test.ts',
    'controller/src/render/header-settings-render.test.ts', 'controller/src/render/golden.test.ts', 'e2e/header-settings.test.ts'],
});
