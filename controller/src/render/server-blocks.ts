// The server {} blocks of nginx.conf, rendered one server at a time and
// reused from the previous render when a server's view did not change: a
// new Ingress among 10,000 re-renders one block, not 10,000 (rendering every
// block through nunjucks was half of a 10k-Ingress rebuild).
//
// Sound by construction: a block is rendered from exactly the values its
// cache key is made of (the server's view plus the shared context below), so
// a reused text is the text a fresh render would give. The output equals
// what `{% for server in servers %}{% include "server.njk" %}` gave.
//
// Memory: a fresh nunjucks text is a rope (about three times its characters
// in string nodes at 10k servers), so the cache never keeps it: once the
// caller has assembled nginx.conf (one flat string), keep() swaps every
// cached text for a slice of that string. The cache then costs a small
// object per server on top of the conf the controller holds anyway. A
// reused block also keeps its old key string, so an unchanged server leaves
// only short-lived garbage behind.

import type { ConfigView, ServerView } from './config-view.ts';
import { jsonOfView } from './server-views.ts';

/** The template that renders one server {} (it includes location.njk). */
export const SERVER_TEMPLATE = 'server.njk';

/** What server.njk may read besides `server`: the view without the servers and what only http{} and stream{} use. */
export type ServerContext = Omit<ConfigView, 'servers' | 'serverNamesHash' | 'stream'>;

/** Renders `SERVER_TEMPLATE` with this context; throws as the template environment does. */
export type RenderServer = (context: ServerContext & { readonly server: ServerView }) => string;

/** The rendered blocks and what they were rendered from. */
export interface RenderedServerBlocks {
  /** Every server's block, in view order. */
  readonly texts: readonly string[];
  /** JSON of the shared context and of each server, in order: the whole view but serverNamesHash, for the config version. */
  readonly keys: readonly string[];
  /**
   * Makes these blocks the cache for the next render, each text kept as a
   * slice of `source`, which must hold `texts` back to back from `offset`
   * on (e.g. the nginx.conf they were assembled into). Not calling it (the
   * render failed) leaves the previous cache in place.
   */
  keep(source: string, offset: number): void;
}

export interface ServerBlocks {
  render(view: ConfigView): RenderedServerBlocks;
}

/** One server's block and the JSON of the view it was rendered from (its cache key). */
interface Block {
  readonly key: string;
  text: string;
}

/** The shared part of `view` that server blocks see. */
export function serverContextOf(view: ConfigView): ServerContext {
  // stream{} is not a server block's business: a TCP endpoint change must not re-render every server.
  const { servers: _servers, serverNamesHash: _hash, stream: _stream, ...context } = view;
  return context;
}

/** A renderer of server blocks that keeps the texts of the last kept render only. */
export function createServerBlocks(renderServer: RenderServer): ServerBlocks {
  let contextKey: string | null = null;
  let previous = new Map<string, Block>();
  return {
    render(view: ConfigView): RenderedServerBlocks {
      const context = serverContextOf(view);
      const key = JSON.stringify(context);
      // e.g. the ports or the TLS settings changed: no block can be reused.
      const reusable = key === contextKey ? previous : new Map<string, Block>();
      const current = new Map<string, Block>();
      const blocks: Block[] = [];
      for (const server of view.servers) {
        const serverKey = jsonOfView(server);
        const block = current.get(serverKey) ?? reusable.get(serverKey) ?? { key: serverKey, text: renderServer({ ...context, server }) };
        current.set(block.key, block);
        blocks.push(block);
      }
      return {
        texts: blocks.map((block) => block.text),
        keys: [key, ...blocks.map((block) => block.key)],
        keep(source: string, offset: number): void {
          let at = offset;
          for (const block of blocks) {
            const end = at + block.text.length;
            block.text = source.slice(at, end);
            at = end;
          }
          contextKey = key;
          previous = current;
        },
      };
    },
  };
}
