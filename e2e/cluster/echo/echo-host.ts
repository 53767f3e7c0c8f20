// Echo servers in a separate process: startEchoHost forks ONE child Node
// process (echo-host-child.ts) that runs every server it is asked to start.
// A benchmark that also runs the simulator and the API server in its own
// process would otherwise block the backends' event loop and measure itself.
// startServer has startEcho's shape, so it plugs into the simulator as is.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EchoHostReply, EchoHostRequest } from './echo-host-child.ts';
import type { EchoOptions, EchoServer } from './echo-server.ts';

export interface EchoHost {
  /** The child's process id. */
  readonly pid: number;
  /** Starts an echo server in the child; rejects with the child's error (e.g. EADDRINUSE). */
  startServer(options: EchoOptions): Promise<EchoServer>;
  /** Closes every server (each drains as its own close() does), then ends the child. */
  stop(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./echo-host-child.ts', import.meta.url));

/** Flags that are about what the parent runs, not how Node runs: the child must not inherit them. */
const PARENT_ONLY = /^(--test|--inspect|--input-type|--eval|--print)/;
/** Ones whose value is the next argument (`-e CODE` would run CODE in the child instead of its entry: a fork bomb). */
const WITH_VALUE = new Set(['-e', '--eval', '-p', '--print']);

/** Same Node and flags as ours (so .ts runs the same way), minus the parent-only ones. */
export function childExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index] ?? '';
    if (WITH_VALUE.has(arg)) index++;
    else if (!PARENT_ONLY.test(arg)) kept.push(arg);
  }
  return kept;
}

type Pending = { resolve: (reply: EchoHostReply & { ok: true }) => void; reject: (err: Error) => void };

export async function startEchoHost(): Promise<EchoHost> {
  const child: ChildProcess = fork(CHILD_ENTRY, [], { execPath: process.execPath, execArgv: childExecArgv(process.execArgv), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, Pending>();
  const open = new Map<number, EchoServer>();
  let seq = 0;
  let nextId = 0;
  let gone: Error | null = null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const failAll = (err: Error): void => {
    gone ??= err;
    for (const request of pending.values()) request.reject(err);
    pending.clear();
  };
  child.on('exit', (code, signal) => failAll(new Error(`echo host: child exited (code ${code}, signal ${signal})`)));
  child.on('error', failAll);
  child.on('message', (message) => {
    const reply = message as EchoHostReply;
    const request = pending.get(reply.seq);
    pending.delete(reply.seq);
    if (!request) return;
    if (reply.ok) request.resolve(reply);
    else request.reject(Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {}));
  });

  const call = (request: EchoHostRequest): Promise<EchoHostReply & { ok: true }> => new Promise((resolve, reject) => {
    if (gone) { reject(gone); return; }
    pending.set(request.seq, { resolve, reject });
    child.send(request, (err) => {
      if (err && pending.delete(request.seq)) reject(err);
    });
  });

  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });

  return {
    pid: child.pid ?? -1,
    async startServer(options: EchoOptions): Promise<EchoServer> {
      const id = nextId++;
      const { port } = await call({ ...options, op: 'start', seq: seq++, id });
      const actual = port ?? options.port;
      let closed: Promise<void> | null = null;
      const server: EchoServer = {
        podName: options.podName, host: options.host, port: actual, url: `http://${options.host}:${actual}`,
        close: () => {
          closed ??= call({ op: 'close', seq: seq++, id }).then(() => { open.delete(id); });
          return closed;
        },
      };
      open.set(id, server);
      return server;
    },
    async stop(): Promise<void> {
      if (!gone) await Promise.allSettled([...open.values()].map((server) => server.close()));
      // The child exits on disconnect (its own handler), after every close above was answered.
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
