// The server {} blocks of nginx.conf, rendered one server at a time and
// reused from the previous render when a server's view did not change: a
// new Ingress among 10,000 re-renders one block, not 10,000 (rendering every
// block through nunjucks was half of a 10k-Ingress rebuild).
//
// Sound by construction: a block is rendered from exactly the values its
// cache key is made of (the server's view plus the shared context below), so
// a reused text is the text a fresh render would give. The output equals
// what `{% for server in servers %}{% include "server.njk" %}` gave.

import type { ConfigView, ServerView } from './config-view.ts';

/** The template that renders one server {} (it includes location.njk). */
export const SERVER_TEMPLATE = 'server.njk';

/** What server.njk may read besides `server`: the view without the servers and what only http{} uses. */
export type ServerContext = Omit<ConfigView, 'servers' | 'serverNamesHash'>;

/** Renders `SERVER_TEMPLATE` with this context; throws as the template environment does. */
export type RenderServer = (context: ServerContext & { readonly server: ServerView }) => string;

/** The rendered blocks and what they were rendered from. */
export interface RenderedServerBlocks {
  /** Every server's block, in view order, as one string. */
  readonly text: string;
  /** JSON of the shared context and of each server, in order: the whole view but serverNamesHash, for the config version. */
  readonly keys: readonly string[];
}

export interface ServerBlocks {
  render(view: ConfigView): RenderedServerBlocks;
}

/** The shared part of `view` that server blocks see. */
export function serverContextOf(view: ConfigView): ServerContext {
  const { servers: _servers, serverNamesHash: _hash, ...context } = view;
  return context;
}

/** A renderer of server blocks that keeps the texts of the last render only (memory stays one nginx.conf). */
export function createServerBlocks(renderServer: RenderServer): ServerBlocks {
  let contextKey: string | null = null;
  let previous = new Map<string, string>();
  return {
    render(view: ConfigView): RenderedServerBlocks {
      const context = serverContextOf(view);
      const key = JSON.stringify(context);
      if (key !== contextKey) previous = new Map(); // e.g. the ports or the TLS settings changed
      const current = new Map<string, string>();
      const parts: string[] = [];
      const keys = [key];
      for (const server of view.servers) {
        const serverKey = JSON.stringify(server);
        let text = current.get(serverKey) ?? previous.get(serverKey);
        if (text === undefined) text = renderServer({ ...context, server });
        current.set(serverKey, text);
        parts.push(text);
        keys.push(serverKey);
      }
      // Only after every block rendered: a throw leaves the previous cache in place.
      contextKey = key;
      previous = current;
      return { text: parts.join(''), keys };
    },
  };
}
