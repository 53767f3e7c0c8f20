// A watch over HTTP: newline-delimited JSON events on a chunked 200
// response, with optional BOOKMARKs and the timeoutSeconds the client asked
// for. Errors found before the first event (bad selector) are plain Status
// responses; a too-old resourceVersion is an ERROR event carrying 410.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf, type KindInfo } from './kinds.ts';
import type { WatchOptions } from './store.ts';
import type { WatchEvent } from './watch.ts';
import type { HandlerContext } from './handlers.ts';
import type { JsonObject } from './patch.ts';

export interface WatchParams {
  readonly timeoutSeconds: number;
  readonly bookmarks: boolean;
  /** the stored object → what this URL serves (another view, metadata only) */
  readonly render: (obj: JsonObject) => JsonObject;
}

export function serveWatch(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse, info: KindInfo, opts: WatchOptions, params: WatchParams): void {
  const pending: WatchEvent[] = [];
  let started = false;
  let closedBeforeStart = false;
  let ended = false;
  const timers: NodeJS.Timeout[] = [];
  const write = (event: WatchEvent): void => {
    if (ended) return;
    const object = event.type !== 'ERROR' && event.type !== 'BOOKMARK' ? params.render(event.object) : event.object;
    res.write(JSON.stringify({ type: event.type, object }) + '\n');
  };
  let stop: () => void = () => undefined;
  const end = (): void => {
    if (ended) return;
    for (const t of timers) clearInterval(t);
    stop();
    ended = true;
    ctx.openWatches.delete(res);
    res.end();
  };
  const sink = {
    onEvent: (event: WatchEvent): void => { if (started) write(event); else pending.push(event); },
    onClose: (): void => { if (started) end(); else closedBeforeStart = true; },
  };
  // May throw (bad selector / rv): then nothing was written and the caller sends a Status.
  stop = ctx.store.watch(info, opts, sink);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  started = true;
  ctx.openWatches.add(res);
  for (const event of pending) write(event);
  if (closedBeforeStart) { end(); return; }
  req.on('close', end);
  res.on('close', end);
  if (params.timeoutSeconds > 0) timers.push(setTimeout(end, params.timeoutSeconds * 1000));
  if (params.bookmarks) {
    timers.push(setInterval(() => write({ type: 'BOOKMARK', object: { kind: info.kind, apiVersion: apiVersionOf(info), metadata: { resourceVersion: ctx.store.resourceVersion } } }), ctx.bookmarkIntervalMs));
  }
}
