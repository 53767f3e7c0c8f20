// HTTP plumbing: URL → route, request body → JSON (JSON or YAML), and
// responses (objects, Status errors, negotiated Table / metadata forms).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { findByPath, type KindInfo } from './kinds.ts';
import { ApiError, badRequest, notFound } from './errors.ts';
import type { Json } from './patch.ts';
import { decodeProtobuf } from './protobuf.ts';

export interface ResourceRoute {
  readonly type: 'resource';
  readonly info: KindInfo;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

export interface PathRoute {
  readonly type: 'path';
  /** '/api' | '/apis' | '/api/v1' | '/apis/<g>' | '/apis/<g>/<v>' | other non-resource path */
  readonly path: string;
  readonly group?: string;
  readonly version?: string;
}

export type Route = ResourceRoute | PathRoute;

/** Map a request path onto a kind and object, per the API's URL layout. */
export function parseRoute(pathname: string): Route {
  let parts: string[];
  try {
    parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  } catch {
    throw badRequest(`malformed URL path "${pathname}"`);
  }
  let group: string; let version: string; let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) { group = ''; version = parts[1]; rest = parts.slice(2); }
  else if (parts[0] === 'apis' && parts.length >= 3) { group = parts[1]; version = parts[2]; rest = parts.slice(3); }
  else return { type: 'path', path: '/' + parts.join('/'), group: parts[0] === 'apis' ? parts[1] : undefined };
  if (rest.length === 0) return { type: 'path', path: '/' + parts.join('/'), group, version };
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && findByPath(group, version, rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const info = findByPath(group, version, rest[0]);
  if (!info || rest.length > 3 || (namespace !== undefined && !info.namespaced)) {
    throw notFound(rest[0], group, rest[1] ?? rest[0]);
  }
  const subresource = rest[2];
  if (subresource !== undefined && !(subresource === 'status' && info.status) && !(subresource === 'scale' && info.scale)) {
    throw notFound(`${info.plural}/${subresource}`, group, rest[1]);
  }
  return { type: 'resource', info, namespace, name: rest[1], subresource };
}

const MAX_BODY = 32 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Decode a body sent as JSON, YAML (apply-patch+yaml) or, for a few kinds, protobuf (helm's storage). */
export function decodeBody(body: Buffer, contentType: string | undefined): Json {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('protobuf')) return decodeProtobuf(body);
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the request body is empty');
  try {
    if (type.includes('yaml')) return parseYaml(text) as Json;
    return JSON.parse(text) as Json;
  } catch (err) {
    throw badRequest(`the request body could not be decoded: ${(err as Error).message}`);
  }
}

export type Rendering = 'object' | 'table' | 'partial';

/** What the Accept header asks for: Table (kubectl get), metadata only, or the object. */
export function renderingOf(accept: string | undefined): Rendering {
  const first = (accept ?? '').split(',')[0];
  if (/as=Table/i.test(first)) return 'table';
  if (/as=PartialObjectMetadata/i.test(first)) return 'partial';
  return 'object';
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const apiErr = err instanceof ApiError ? err : new ApiError(500, 'InternalError', `internal error: ${(err as Error)?.message ?? String(err)}`);
  if (res.headersSent) { res.destroy(); return; }
  sendJson(res, apiErr.code, apiErr.toStatus());
}
