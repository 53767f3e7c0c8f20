// One page of a list, fetched and decoded without client-node's generated
// clients: the same request (the collection URL, limit, continue,
// fieldSelector, the KubeConfig's credentials and agent) and the same typed
// objects (typed-decoder.ts), without its generic deserializer, which cost
// more than the JSON parse at 10,000 objects a kind. A status outside 2xx
// is an ApiException with the HTTP code, as the generated clients throw;
// network errors are the request's own (same `code`s: ECONNREFUSED, ...).

import { request as httpRequest } from 'node:http';
import type { Agent, IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { ApiException } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';

import type { ListPage } from './paged-list.ts';
import { decoderFor } from './typed-decoder.ts';

/** Which objects one page asks for. */
export interface RawListScope {
  /** The collection path (kinds.ts collectionPath). */
  readonly path: string;
  readonly fieldSelector?: string;
}

interface Response {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function get(url: URL, agent: Agent | undefined, headers: Record<string, string>): Promise<Response> {
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The headers applyToFetchOptions set (a plain object or a Headers-like), as a plain object. */
function plainHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === null || typeof headers !== 'object') return out;
  const entries = typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)
    ? (() => { const list: [string, string][] = []; (headers as { forEach(fn: (v: string, k: string) => void): void }).forEach((v, k) => list.push([k, v])); return list; })()
    : Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k, String(v)] as [string, string]);
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/** Lists one page of `typeName`'s collection at `scope.path` (e.g. typeName "V1Ingress" decodes a V1IngressList). */
export async function listRawPage(kc: KubeConfig, typeName: string, scope: RawListScope, page: ListPage): Promise<KubernetesListObject<KubernetesObject>> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('no current cluster in the kubeconfig');
  const url = new URL(`${cluster.server}${scope.path}`);
  url.searchParams.set('limit', String(page.limit));
  if (page.continueToken !== undefined) url.searchParams.set('continue', page.continueToken);
  if (scope.fieldSelector !== undefined) url.searchParams.set('fieldSelector', scope.fieldSelector);
  const init = await kc.applyToFetchOptions({ method: 'GET' }) as { agent?: Agent; headers?: unknown };
  const response = await get(url, init.agent, { ...plainHeaders(init.headers), accept: 'application/json' });
  if (response.status < 200 || response.status > 299) {
    const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, String(v)]));
    let body: unknown = response.body;
    try {
      body = JSON.parse(response.body);
    } catch {
      // not JSON: the text itself
    }
    throw new ApiException(response.status, response.status === 401 ? 'Unauthorized' : 'Unknown API Status Code!', body, headers);
  }
  return decoderFor(`${typeName}List`)(JSON.parse(response.body)) as KubernetesListObject<KubernetesObject>;
}
