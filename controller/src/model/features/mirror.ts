// mirror-target, mirror-request-body, mirror-host: every request of the
// Ingress's paths is copied to a target (NGINX's mirror module); the client
// gets the main backend's answer, the copy's answer is dropped. As in
// ingress-nginx v1.15.1 the copy goes through an internal location of the
// server that proxies to the target with the Host header mirror-host says
// (the target's host name by default); a value ingress-nginx's validator
// refuses is ignored with a warning. mirror-target and mirror-host are High
// risk there: parse.ts refuses them under annotations-risk-level Medium or Low.
//
// The target's address is an `upstream` NGINX resolves when it loads its
// configuration, also for a target with $request_uri (ingress-nginx resolves
// those per request through its resolver): no resolver is needed, and a host
// that does not resolve fails `nginx -t` on a line of this Ingress's, so the
// sync leaves this Ingress out and applies the rest (render/conf-owners.ts).

import { createHash } from 'node:crypto';
import { accept, type Checked } from '../checked.ts';
import type { MirrorConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseMirrorHost, parseMirrorTarget, parseRequestBody } from './mirror-url.ts';

/** The name of the internal location and upstream a target, Host header and body choice go through. */
export function mirrorName(config: Pick<MirrorConfig, 'target' | 'host' | 'requestBody'>): string | null {
  if (config.target === null) return null;
  const digest = createHash('sha256').update(JSON.stringify([config.target, config.host, config.requestBody])).digest('hex');
  return `_mirror-${digest.slice(0, 16)}`;
}

/** Names the mirror once the keys are read (the name depends on all three). */
function finish(config: MirrorConfig): Checked<MirrorConfig> {
  return accept({ ...config, name: mirrorName(config) });
}

export const mirrorFeature = defineFeature({
  name: 'mirror',
  title: 'Mirror',
  doc: 'Copies every request of the Ingress\'s paths to mirror-target (NGINX\'s mirror module): the client gets the main '
    + 'backend\'s answer at once, the copy\'s answer is dropped, and a slow or dead mirror never fails the request. As in '
    + 'ingress-nginx, NGINX ends the request only once its copy is done: a slow mirror delays its access log and metrics line '
    + '(request_time includes the copy) and the next request on the same keep-alive connection. The target\'s host is resolved '
    + 'when NGINX loads its configuration: a host that does not resolve refuses this Ingress (the others are applied). '
    + 'High risk: only under annotations-risk-level High.',
  output: { kind: 'location', template: 'features/mirror.njk' },
  defaults: { target: null, requestBody: true, host: null, name: null },
  keys: [
    field<MirrorConfig, 'target'>('target', parseMirrorTarget, {
      annotation: { name: 'mirror-target', scope: 'ingress', risk: 'High' }, defaultText: '', invalid: 'ignore',
      doc: 'The URL every request is copied to: http(s)://host[:port][/path], optionally ending in $request_uri.',
      difference: 'a strict URL: a host name or IPv4 address, a path of letters, digits and -._~/:, and $request_uri as the only '
        + 'variable (at the end); another value ingress-nginx takes refuses the Ingress. The host is resolved at configuration load, '
        + 'also with $request_uri (ingress-nginx resolves those per request)',
    }),
    field<MirrorConfig, 'requestBody'>('requestBody', parseRequestBody, {
      annotation: { name: 'mirror-request-body', scope: 'ingress', risk: 'Low' }, defaultText: 'on', invalid: 'ignore',
      doc: 'on: the copy carries the request body; off: it does not.',
      difference: 'off also drops Content-Length and Transfer-Encoding from the copy (ingress-nginx sends the client\'s, and the mirror waits for a body that never comes)',
    }),
    field<MirrorConfig, 'host'>('host', parseMirrorHost, {
      annotation: { name: 'mirror-host', scope: 'ingress', risk: 'High' }, defaultText: 'the target\'s host', invalid: 'ignore',
      doc: 'The Host header of the copy (a host name or IPv4 address, optionally with :port).',
      difference: 'a host name or IPv4 address with an optional :port: another value ingress-nginx takes refuses the Ingress',
    }),
  ],
  finish,
  proof: ['controller/src/model/features/mirror.test.ts', 'controller/src/render/mirror-view.test.ts', 'controller/src/render/mirror-render.test.ts', 'e2e/mirror.test.ts'],
});
