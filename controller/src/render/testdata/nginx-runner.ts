// Runs a rendered nginx.conf with the real data-plane runtime: `nginx -t`
// for golden files, and a foreground master for the smoke test. The Lua
// harness (lua/test/nginx-harness.ts) writes its own conf, so render keeps
// this minimal launcher for whole rendered files.

import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Dataplane } from '../../nginx/dataplane.ts';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../../tls/self-signed.ts';
import { defaultCertificatePaths } from '../render-options.ts';

let placeholder: SelfSignedCertificate | null = null;

/** A fresh temp prefix NGINX's workers (nobody, when tests run as root) can enter. */
export function makePrefix(): string {
  const prefix = mkdtempSync(join(tmpdir(), 'resty-render-'));
  chmodSync(prefix, 0o755);
  // The HTTPS listener's placeholder certificate, as the controller writes it (one per test process).
  placeholder ??= createSelfSignedCertificate({ commonName: 'resty-ingress-test' });
  const files = defaultCertificatePaths(prefix);
  mkdirSync(dirname(files.certificate), { recursive: true });
  writeFileSync(files.certificate, placeholder.cert);
  writeFileSync(files.key, placeholder.key, { mode: 0o644 }); // a throwaway test key; NGINX's master reads it
  return prefix;
}

function nginxArgv(dataplane: Dataplane, prefix: string, confPath: string): { cmd: string; args: string[] } {
  const [cmd, ...rest] = dataplane.command;
  if (cmd === undefined) throw new Error('dataplane.command is empty');
  // -e: the compiled-in error log (/var/log/nginx) is outside the prefix and may not exist.
  return { cmd, args: [...rest, '-p', prefix, '-c', confPath, '-e', join(prefix, 'error.log')] };
}

/** Writes `conf` into `prefix` and runs `nginx -t`; resolves with its output, rejects with it on failure. */
export async function checkConfig(dataplane: Dataplane, prefix: string, conf: string): Promise<string> {
  const confPath = join(prefix, 'nginx.conf');
  writeFileSync(confPath, conf);
  const { cmd, args } = nginxArgv(dataplane, prefix, confPath);
  try {
    const { stderr } = await promisify(execFile)(cmd, [...args, '-t']);
    return stderr;
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`nginx -t failed for ${confPath}:\n${detail}`, { cause: error });
  }
}

/** A running NGINX master started from a rendered conf. */
export interface RunningNginx {
  readonly prefix: string;
  errorLog(): string;
  /** SIGQUIT (graceful), SIGKILL after 5 s; removes the prefix. */
  stop(): Promise<void>;
}

/** Starts `conf` in the foreground (it must say `daemon off`) and waits until GET readyUrl answers 200. */
export async function startNginx(dataplane: Dataplane, prefix: string, conf: string, readyUrl: string): Promise<RunningNginx> {
  const confPath = join(prefix, 'nginx.conf');
  writeFileSync(confPath, conf);
  const { cmd, args } = nginxArgv(dataplane, prefix, confPath);
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const errorLog = (): string => {
    try {
      return readFileSync(join(prefix, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      const ended = await Promise.race([exited.then(() => true), sleep(5000, false, { ref: false })]);
      if (!ended) child.kill('SIGKILL');
      await exited;
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ok = await fetch(readyUrl).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (ok) return { prefix, errorLog, stop };
    await sleep(25);
  }
  const detail = `${stderr}\n${errorLog()}`;
  await stop();
  throw new Error(`nginx did not answer ${readyUrl} within 10 s:\n${detail}`);
}
