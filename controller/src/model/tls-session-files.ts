// Where the files of the TLS session keys live: the ssl-session-ticket-key
// file and the ssl-dh-param parameters (features/tls-session.ts,
// model/dh-params.ts). The renderer prints the paths and the controller writes
// the files (nginx/tls-session-files.ts) before any `nginx -t` reads them. A
// name is its content's fingerprint, so a new key is a new file and the running
// configuration keeps reading the old one until its reload.

import { createHash } from 'node:crypto';
import type { TlsSessionSettings } from './types.ts';

/** One file NGINX reads: where, and what it holds. */
export interface TlsSessionFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/** The folder of these files under the NGINX prefix. */
export function tlsSessionDir(prefix: string): string {
  return `${prefix}/tls-session`;
}

function named(prefix: string, kind: string, extension: string, bytes: Buffer): TlsSessionFile {
  // A fingerprint of the content, never the content: the file name is printed in nginx.conf and logs.
  const name = createHash('sha256').update(`resty-ingress ${kind}\0`).update(bytes).digest('hex').slice(0, 16);
  return { path: `${tlsSessionDir(prefix)}/${kind}-${name}.${extension}`, bytes };
}

/** The ticket key file nginx.conf names for `settings`, with the bytes to write; null without a key. */
export function ticketKeyFile(prefix: string, settings: Pick<TlsSessionSettings, 'ticketKey'> | undefined): TlsSessionFile | null {
  const key = settings?.ticketKey;
  return key === undefined || key === null ? null : named(prefix, 'ticket', 'key', Buffer.from(key, 'base64'));
}

/** The DH parameters file nginx.conf names for `settings`; null without parameters. */
export function dhParamFile(prefix: string, settings: Pick<TlsSessionSettings, 'dhParam'> | undefined): TlsSessionFile | null {
  const pem = settings?.dhParam;
  return pem === undefined || pem === null ? null : named(prefix, 'dhparam', 'pem', Buffer.from(pem, 'utf8'));
}

/** Every file of `settings`. */
export function tlsSessionFiles(prefix: string, settings: Pick<TlsSessionSettings, 'ticketKey' | 'dhParam'> | undefined): TlsSessionFile[] {
  return [ticketKeyFile(prefix, settings), dhParamFile(prefix, settings)].filter((file): file is TlsSessionFile => file !== null);
}
