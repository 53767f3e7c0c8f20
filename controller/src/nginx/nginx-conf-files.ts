// Writing and validating configuration files. A reader (the master, on HUP
// or restart) must only ever see a whole file, so files are written to a temp
// name beside their target and renamed over it (rename is atomic on one file
// system). Validation is `nginx -t` on the exact file that will be renamed in.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Dataplane } from './dataplane.ts';
import { NginxConfigError, nginxProblems, problemLine } from './nginx-errors.ts';

/** Writes `content` to `path` so readers see the old file or the new one, never a part. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** Where the rendered nginx.conf puts the fallback servers' sockets (render/render-options.ts, fallbackSocketPaths). */
const SOCKET_DIR = 'sockets';

/**
 * Removes the unix sockets NGINX listens on: `*.sock` in its prefix, and the
 * prefix's socket directory with all in it. A master that was killed leaves
 * them behind, and a new master cannot bind a path that exists: it would fail
 * to start. NGINX makes the socket directory again as it starts (http.njk:
 * 0700, its workers' own; it would keep the looser mode of a directory that
 * exists). Called only when no master runs.
 */
export async function removeStaleSockets(prefix: string): Promise<void> {
  const names = await readdir(prefix).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.endsWith('.sock')).map((name) => rm(join(prefix, name), { force: true })));
  await rm(join(prefix, SOCKET_DIR), { recursive: true, force: true });
}

export interface TestConfOptions {
  readonly dataplane: Dataplane;
  readonly prefix: string;
  readonly confPath: string;
  /** Large configurations take seconds to parse; default 120 s. */
  readonly timeoutMs?: number;
  /** Kills the test early (the manager is stopping). */
  readonly signal?: AbortSignal;
}

/** Runs a command to completion; its exit code (null when killed) and its output. */
function run(
  argv: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, signal });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    // An abort also emits 'error' (AbortError); 'close' still follows and reports code null.
    child.on('error', (err) => {
      if (err.name !== 'AbortError') reject(err);
    });
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/**
 * `nginx -t -q -p prefix -c confPath`. Resolves when NGINX accepts the file;
 * throws NginxConfigError carrying NGINX's error lines when it does not.
 */
export async function testNginxConf(options: TestConfOptions): Promise<void> {
  const { dataplane, prefix, confPath } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const argv = [...dataplane.command, '-t', '-q', '-p', prefix, '-c', confPath];
  const { code, output } = await run(argv, timeoutMs, options.signal);
  if (code === 0) return;
  const problems = nginxProblems(output);
  const reason =
    code === null
      ? options.signal?.aborted
        ? 'nginx -t was cancelled'
        : `nginx -t did not finish within ${timeoutMs} ms`
      : problems.length > 0
        ? problems.join('; ')
        : output.trim() || `nginx -t exited with code ${code}`;
  const refused = code !== null && problems.length > 0;
  throw new NginxConfigError(`invalid NGINX configuration: ${reason}`, output, { line: refused ? problemLine(output, confPath) : null, refused });
}
