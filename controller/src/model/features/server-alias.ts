// server-alias, as ingress-nginx v1.15.1 reads it (annotations/alias): a comma
// list of extra names for the server of each host of the Ingress, trimmed,
// empty items skipped, deduplicated and sorted. Its validator
// (ValidateArrayOfServerName) admits regex characters (its risk is High
// for that reason); here an item must be a host name or a one-label
// wildcard (`*.example.com`): a regex server name is refused as unsupported.
// Which aliases a server gets is decided over every Ingress (model/server-aliases.ts):
// the oldest Ingress of the host with aliases, never a name that is a host of its own.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ServerAliasConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

/** A DNS name (RFC 1123 labels), optionally `*.` in front. */
const NAME = /^(?:\*\.)?[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*$/u;
/** ingress-nginx's IsValidRegex: what it would take (then render as a regex or a wildcard). */
const INGRESS_NGINX_NAME = /^[/\-._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/u;
const MAX_NAMES = 100;

function parseAliases(raw: string): Checked<readonly string[]> {
  const names = new Set<string>();
  for (const item of raw.split(',')) {
    const trimmed = item.trim();
    if (trimmed === '') continue;
    if (!INGRESS_NGINX_NAME.test(trimmed)) return refuse('expected host names separated by commas');
    const name = trimmed.toLowerCase();
    if (name.length > 253 || !NAME.test(name)) return unsupported('only host names and *.wildcards are supported as aliases (no regular expressions)');
    names.add(name);
  }
  if (names.size > MAX_NAMES) return refuse(`more than ${MAX_NAMES} aliases`);
  return accept(Object.freeze([...names].sort()));
}

export const serverAliasFeature = defineFeature({
  name: 'serverAlias',
  title: 'Server aliases',
  doc: 'server-alias adds names to the server of each host of the Ingress (NGINX\'s server_name): the same locations answer '
    + 'them. The oldest Ingress of a host with aliases decides; an alias that is a host of its own is dropped (the real host '
    + 'wins), with a Warning Event on the Ingress. Only host names and *.wildcards are supported, not regular expressions.',
  output: { kind: 'location', template: null },
  defaults: { names: [] },
  keys: [
    field<ServerAliasConfig, 'names'>('names', parseAliases, {
      annotation: { name: 'server-alias', scope: 'ingress', risk: 'High' }, defaultText: '',
      doc: 'Host names (or *.wildcards) separated by commas.',
      difference: 'regular expressions as aliases are refused (unsupported)',
    }),
  ],
  proof: ['controller/src/model/features/server-alias.test.ts', 'controller/src/model/server-aliases.test.ts', 'controller/src/render/redirect-render.test.ts', 'lua/https-redirect.test.ts', 'e2e/redirects.test.ts'],
});
