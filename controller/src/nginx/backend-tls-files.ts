// Writes the proxy-ssl-secret PEMs the rendered nginx.conf names
// (model/backend-tls.ts names them) before NGINX reads them: `nginx -t` and
// the reload load every certificate file. The folder is 0700 and every file
// 0600, owned by the controller's user, which runs the NGINX master that reads
// them; the key is never logged. Files are named by fingerprint and written
// atomically, so a rotation adds a file; files no model of the last two writes
// names are removed (the running configuration may still name the previous ones).

import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { backendTlsDir, backendTlsFiles } from '../model/backend-tls.ts';
import type { BackendTlsSecret } from '../model/types.ts';

/** Writes the files of `secrets` under `prefix`; returns their names, to keep on the next call. */
export function writeBackendTlsFiles(prefix: string, secrets: readonly BackendTlsSecret[] | undefined, keep: ReadonlySet<string> = new Set()): Set<string> {
  const dir = backendTlsDir(prefix);
  const written = new Set<string>();
  const files = backendTlsFiles(prefix, secrets);
  if (files.size === 0 && keep.size === 0) {
    rmSync(dir, { recursive: true, force: true });
    return written;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const present = new Set(readdirSync(dir));
  for (const secret of secrets ?? []) {
    const paths = files.get(secret.id);
    if (paths === undefined) continue;
    const contents: [string | null, string | null][] = [
      [paths.ca, secret.ca],
      [paths.certificate, secret.cert !== null && secret.key !== null ? `${secret.cert}${secret.key}` : null],
    ];
    for (const [path, content] of contents) {
      if (path === null || content === null) continue;
      const name = basename(path);
      written.add(name);
      if (present.has(name)) continue; // named by fingerprint: same name, same content
      const temporary = join(dir, `.${name}.tmp`);
      writeFileSync(temporary, content, { mode: 0o600 });
      renameSync(temporary, path);
    }
  }
  for (const name of present) {
    if (!written.has(name) && !keep.has(name)) rmSync(join(dir, name), { force: true });
  }
  return written;
}
