// Started by root, the NGINX master hands its workers to `nobody` (the
// rendered nginx.conf has no `user` directive; the image runs everything as
// one non-root user instead). Those workers open files inside the prefix at
// run time: request bodies beyond the buffer (client_body_temp), proxy
// buffers (proxy_temp), the logs they reopen on USR1 (the metrics log
// rotation), and they connect to the fallback servers' unix sockets (every
// request whose backend has no endpoints, every ssl-redirect). A prefix that `nobody` cannot reach makes each of those fail at
// the worst moment ("[crit] ... Permission denied" per request), so the
// controller says so when it starts NGINX.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The mode bit that lets "others" (nobody) enter a directory. */
const OTHERS_EXECUTE = 0o001;

/**
 * The first directory on the way to `prefix` (itself included) that a user
 * who is neither its owner nor in its group cannot enter, or null when every
 * one can be entered. A missing directory counts as reachable: it will be
 * created with the process's umask.
 */
export function unreachableByOthers(prefix: string, stat: (path: string) => { mode: number } | undefined = statOrUndefined): string | null {
  const chain: string[] = [];
  for (let dir = resolve(prefix); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    const info = stat(dir);
    if (info && (info.mode & OTHERS_EXECUTE) === 0) return dir;
  }
  return null;
}

function statOrUndefined(path: string): { mode: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The warning to log when NGINX starts as root and its workers cannot reach `prefix`; null when all is well. */
export function workerAccessProblem(prefix: string, euid: number | undefined = process.geteuid?.()): string | null {
  if (euid !== 0) return null;
  const blocked = unreachableByOthers(prefix);
  if (blocked === null) return null;
  return `started as root, NGINX runs its workers as "nobody", who cannot enter ${blocked}: `
    + 'requests to backends without endpoints, ssl-redirects, request bodies larger than the buffer, proxy temp files '
    + 'and reopening the logs (metrics log rotation) will fail. '
    + `Run the controller as a non-root user, or make ${blocked} and the folders above it enterable by others (chmod o+x)`;
}
