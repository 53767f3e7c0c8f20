// Helpers for the tests of this folder that run the real NGINX: a temp
// prefix, free loopback ports, a small hand-written configuration with the
// status server and /config-version, and a logger that records its lines.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { findDataplane, type Dataplane } from './dataplane.ts';

/** The unpacked runtime; fails (never skips) when `npm run setup` has not run. */
export function requireDataplane(): Dataplane {
  const dataplane = findDataplane();
  const nginx = dataplane.command.at(-1) ?? '';
  assert.ok(existsSync(nginx), `no NGINX at ${nginx}: run npm run setup`);
  return dataplane;
}

export { freePort } from '../../../e2e/harness/network.ts';

/** A fresh prefix under the OS temp dir, and its removal. */
export async function tempPrefix(): Promise<{ prefix: string; remove: () => Promise<void> }> {
  const prefix = await mkdtemp(join(tmpdir(), 'resty-nginx-'));
  return { prefix, remove: () => rm(prefix, { recursive: true, force: true }) };
}

export interface TestConfOptions {
  readonly statusPort: number;
  readonly version: string;
  /** Extra directives for the http block (an extra server, a bad directive). */
  readonly extraHttp?: string;
}

/** The smallest configuration an unprivileged foreground NGINX runs with, answering `version`. */
export function testConf(options: TestConfOptions): string {
  return `daemon off;
master_process on;
worker_processes 2;
pid nginx.pid;
error_log stderr notice;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path client_body_temp;
  proxy_temp_path proxy_temp;
  fastcgi_temp_path fastcgi_temp;
  uwsgi_temp_path uwsgi_temp;
  scgi_temp_path scgi_temp;
  server {
    listen 127.0.0.1:${options.statusPort};
    location = /healthz { return 200 "ok"; }
    location = /config-version { return 200 "${options.version}"; }
  }
${options.extraHttp ?? ''}
}
`;
}

/** One recorded log line: pino's numeric level and its message. */
export interface RecordedLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** A real pino logger writing into an array. */
export function recordingLogger(): { logger: Logger; lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (text: string) => lines.push(JSON.parse(text) as RecordedLine) });
  return { logger, lines };
}

/** Polls `check` until it returns true, or fails the test after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
