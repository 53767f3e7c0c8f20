// The child side of echo-host.ts: one Node process that runs many echo
// servers (the same startEcho as in-process pods, so replies are identical)
// on the parent's orders over IPC. Exits when the IPC channel goes away,
// which also covers a parent that died without calling stop().
import { startEcho, type EchoOptions, type EchoServer } from './echo-server.ts';

/** What the parent sends; `seq` pairs a request with its reply. */
export type EchoHostRequest =
  | ({ readonly op: 'start'; readonly seq: number; readonly id: number } & EchoOptions)
  | { readonly op: 'close'; readonly seq: number; readonly id: number };

/** What the child answers to every request. */
export type EchoHostReply =
  | { readonly seq: number; readonly ok: true; readonly port?: number }
  | { readonly seq: number; readonly ok: false; readonly error: string; readonly code?: string };

const servers = new Map<number, EchoServer>();

function send(reply: EchoHostReply): void {
  // The parent may be gone by the time a drain finishes; nobody is left to tell.
  if (process.connected) process.send?.(reply);
}

async function handle(request: EchoHostRequest): Promise<void> {
  try {
    if (request.op === 'start') {
      const { op: _op, seq: _seq, id: _id, ...options } = request;
      const server = await startEcho(options);
      servers.set(request.id, server);
      send({ seq: request.seq, ok: true, port: server.port });
    } else {
      const server = servers.get(request.id);
      servers.delete(request.id);
      await server?.close();
      send({ seq: request.seq, ok: true });
    }
  } catch (err) {
    send({ seq: request.seq, ok: false, error: (err as Error).message, code: (err as NodeJS.ErrnoException).code });
  }
}

process.on('message', (message) => void handle(message as EchoHostRequest));
// No parent, no pods: listening sockets die with the process.
process.on('disconnect', () => process.exit(0));
