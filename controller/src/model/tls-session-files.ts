// Where the ssl-session-ticket-key file lives (features/tls-session.ts). The
// renderer prints the path and the controller writes the file
// (nginx/tls-session-files.ts) before any `nginx -t` reads it. The name is the
// key's fingerprint, so a new key is a new file and the running configuration
// keeps reading the old one until its reload.

import { createHash } from 'node:crypto';
import type { TlsSessionSettings } from './types.ts';

/** The folder of the ticket key files under the NGINX prefix. */
export function tlsSessionDir(prefix: string): string {
  return `${prefix}/tls-session`;
}

/** The ticket key file nginx.conf names for `settings`, with the bytes to write; null without a key. */
export function ticketKeyFile(prefix: string, settings: Pick<TlsSessionSettings, 'ticketKey'> | undefined): { readonly path: string; readonly bytes: Buffer } | null {
  const key = settings?.ticketKey;
  if (key === undefined || key === null) return null;
  const bytes = Buffer.from(key, 'base64');
  // A fingerprint of the decoded key, not the key: the file name is printed in nginx.conf and logs.
  const name = createHash('sha256').update('resty-ingress ticket key\0').update(bytes).digest('hex').slice(0, 16);
  return { path: `${tlsSessionDir(prefix)}/ticket-${name}.key`, bytes };
}
