// connection-proxy-header (ingress-nginx v1.15.1: annotations/connection): the
// Connection header a location sends its backend, `close` or `keep-alive`,
// instead of http {}'s `$connection_upgrade` (upgrade for websockets, else
// empty, which keeps upstream keep-alive). ingress-nginx prints a
// `proxy_set_header Connection <value>` of its own in every location; here the
// one header list stays in http {} (a location with a proxy_set_header of its
// own would have to print all of them again) and the location `set`s the
// variable that list sends, as `$proxy_upstream_name` is set over its map.
// Its validator's error refuses the Ingress (the parser returns it).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ConnectionHeaderConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

function parseConnection(raw: string): Checked<'close' | 'keep-alive'> {
  // ingress-nginx: ^(close|keep-alive)$ on the value without its spaces, the trimmed value printed.
  const value = raw.trim();
  if (value === 'close' || value === 'keep-alive') return accept(value);
  if (/^(?:close|keep-alive)$/u.test(raw.replaceAll(' ', ''))) return unsupported('a space inside: NGINX would read two values');
  return refuse('expected close or keep-alive');
}

export const connectionHeaderFeature = defineFeature({
  name: 'connectionHeader',
  title: 'Connection header to backends',
  doc: 'The Connection header sent to the backend: close or keep-alive instead of the default (upgrade for websocket '
    + 'requests, else empty, which keeps connections to backends alive). As in ingress-nginx, it replaces the websocket upgrade too.',
  output: { kind: 'location', template: 'features/connection-header.njk' },
  defaults: { header: null },
  keys: [
    field<ConnectionHeaderConfig, 'header'>('header', parseConnection, {
      annotation: { name: 'connection-proxy-header', scope: 'location', risk: 'Low' }, defaultText: '$connection_upgrade',
      doc: 'The Connection header sent to the backend: close or keep-alive.',
    }),
  ],
  proof: ['controller/src/model/features/connection-header.test.ts', 'controller/src/render/proxy-tuning-render.test.ts', 'e2e/proxy-tuning.test.ts'],
});
