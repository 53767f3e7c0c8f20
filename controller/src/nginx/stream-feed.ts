// The controller's side of the stream endpoint feed: NGINX's njs module
// (rootfs/etc/nginx/njs/resty_stream.js) listens on a unix socket in NGINX's
// private sockets directory (render/render-options.ts streamFeedSocketPath) and
// answers one request per connection, a text ending in an empty line:
//
//   set <version>\n<PROTOCOL>/<port>[ <address:port>…]\n…\n\n   → ok <version> | error <reason>
//   stats\n\n → version <N>\n then `<PROTOCOL>/<port> <connections> <bytes in> <bytes out> <failed>` lines
//
// `set` is the FULL set: a listener it does not name loses its endpoints. njs
// checks every line again and stores nothing of a request it refuses.

import { connect } from 'node:net';
import { isIP } from 'node:net';
import type { DynamicStream } from '../model/types.ts';

/** Per-listener counters njs keeps since NGINX started (a reload keeps them). */
export interface StreamCounters {
  /** `TCP/<port>` / `UDP/<port>`. */
  readonly key: string;
  readonly connections: number;
  /** Bytes from the clients ($bytes_received). */
  readonly bytesIn: number;
  /** Bytes to the clients ($bytes_sent). */
  readonly bytesOut: number;
  /** Sessions NGINX could not connect to their peer (status 502). */
  readonly failed: number;
}

export interface StreamStats {
  /** The version of the last set njs stored; 0 = nothing fed since NGINX started. */
  readonly version: number;
  readonly listeners: readonly StreamCounters[];
}

export class StreamFeedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StreamFeedError';
  }
}

/** `address:port`, IPv6 in brackets; throws on anything else (nothing but an IP address reaches proxy_pass). */
function peerOf(address: string, port: number): string {
  const family = isIP(address);
  if (family === 0 || address.includes('%') || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StreamFeedError(`stream endpoint ${JSON.stringify(`${address}:${port}`)} is not an IP address and port`);
  }
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The `set` request for `streams` (the full set). */
export function setRequest(version: number, streams: readonly DynamicStream[]): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new StreamFeedError(`feed version ${version} is not a positive integer`);
  const lines = streams.map((stream) => {
    if ((stream.protocol !== 'TCP' && stream.protocol !== 'UDP') || !Number.isInteger(stream.port) || stream.port < 1 || stream.port > 65535) {
      throw new StreamFeedError(`stream listener ${JSON.stringify({ protocol: stream.protocol, port: stream.port })} is not valid`);
    }
    return [`${stream.protocol}/${stream.port}`, ...stream.endpoints.map((endpoint) => peerOf(endpoint.address, endpoint.port))].join(' ');
  });
  return `set ${version}\n${lines.map((line) => `${line}\n`).join('')}\n`;
}

/** One request on the feed socket: the whole answer; throws StreamFeedError (ENOENT when nothing listens: `code`). */
export function feedRequest(socketPath: string, request: string, timeoutMs = 5000): Promise<string> {
  return new Promise((done, fail) => {
    let answer = '';
    const socket = connect(socketPath, () => socket.write(request));
    socket.setTimeout(timeoutMs, () => socket.destroy(new StreamFeedError(`no answer from the stream feed within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('utf8'); });
    // NGINX answers and closes; a reset may follow the answer, which is complete once it ends in "\n".
    socket.on('close', () => {
      if (answer.endsWith('\n')) done(answer);
      else fail(new StreamFeedError(`the stream feed closed without a full answer (${JSON.stringify(answer.slice(0, 80))})`));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (answer.endsWith('\n')) return; // 'close' follows and resolves
      socket.destroy();
      fail(error instanceof StreamFeedError ? error : Object.assign(new StreamFeedError(`stream feed ${socketPath}: ${error.message}`, { cause: error }), { code: error.code }));
    });
  });
}

/** Feeds the full set; resolves when njs stored it, throws StreamFeedError with njs's reason otherwise. */
export async function feedStreams(socketPath: string, version: number, streams: readonly DynamicStream[]): Promise<void> {
  const answer = await feedRequest(socketPath, setRequest(version, streams));
  if (answer !== `ok ${version}\n`) throw new StreamFeedError(`the stream feed refused the endpoints: ${answer.trim().slice(0, 200)}`);
}

const COUNTER_LINE = /^((?:TCP|UDP)\/\d{1,5}) (\d+) (\d+) (\d+) (\d+)$/u;

/** The stats answer, strictly: a line that does not fit is left out. */
export function parseStats(answer: string): StreamStats {
  const [head, ...lines] = answer.split('\n');
  const version = /^version (\d+)$/u.exec(head ?? '');
  if (version === null) throw new StreamFeedError(`the stream feed answered no stats: ${answer.slice(0, 80)}`);
  const listeners: StreamCounters[] = [];
  for (const line of lines) {
    const match = COUNTER_LINE.exec(line);
    if (match === null) continue;
    listeners.push({ key: match[1] ?? '', connections: Number(match[2]), bytesIn: Number(match[3]), bytesOut: Number(match[4]), failed: Number(match[5]) });
  }
  return { version: Number(version[1]), listeners };
}

/** The counters njs holds. */
export async function readStreamStats(socketPath: string): Promise<StreamStats> {
  return parseStats(await feedRequest(socketPath, 'stats\n\n'));
}
