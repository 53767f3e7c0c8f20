// Writes the ssl-session-ticket-key and ssl-dh-param files the rendered
// nginx.conf names (model/tls-session-files.ts) before NGINX reads them: `nginx
// -t` and the reload load them. As the proxy-ssl-secret files (backend-tls-files.ts): the folder is
// 0700 and the file 0600, owned by the controller's user, which runs the NGINX
// master that reads it; named by fingerprint and written atomically; a file no
// model of the last two writes names is removed (the running configuration may
// still name the previous key). The key is never logged.

import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tlsSessionDir, tlsSessionFiles } from '../model/tls-session-files.ts';
import type { TlsSessionSettings } from '../model/types.ts';

/** Writes the files of `settings` under `prefix`; returns the names written, to keep on the next call. */
export function writeTlsSessionFiles(prefix: string, settings: Pick<TlsSessionSettings, 'ticketKey' | 'dhParam'> | undefined, keep: ReadonlySet<string> = new Set()): Set<string> {
  const dir = tlsSessionDir(prefix);
  const files = tlsSessionFiles(prefix, settings);
  const written = new Set<string>();
  if (files.length === 0 && keep.size === 0) {
    rmSync(dir, { recursive: true, force: true });
    return written;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const present = new Set(readdirSync(dir));
  for (const file of files) {
    const name = basename(file.path);
    written.add(name);
    if (!present.has(name)) {
      const temporary = join(dir, `.${name}.tmp`);
      writeFileSync(temporary, file.bytes, { mode: 0o600 });
      renameSync(temporary, file.path);
    }
  }
  for (const name of present) {
    if (!written.has(name) && !keep.has(name)) rmSync(join(dir, name), { force: true });
  }
  return written;
}
