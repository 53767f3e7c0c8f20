// Redirect targets (model RedirectTarget) as NGINX strings: the nunjucks
// filter `qredirect`. The model parsed each part with its own grammar
// (model/features/redirect-url.ts); render checks the parts again (the second
// wall, as nginx-values.ts) and prints only them, reassembled, quoted and
// without any `$`.

import { redirectTargetText } from '../model/features/redirect-url.ts';
import type { RedirectTarget } from '../model/types.ts';
import { quoteNginxLiteral, RenderError } from './nginx-values.ts';

const HOST = /^[-._~a-zA-Z0-9]+$/u;
const PATH = /^(?:\/[-._~a-zA-Z0-9/:,&=]*)?$/u;
const QUERY = /^[-._~a-zA-Z0-9/:,?&=]*$/u;

function fail(message: string): never {
  throw new RenderError('UnsafeValue', `redirect target: ${message}`);
}

/** `"<scheme>://<host>[:<port>]<path>[?<query>]"` or `"<path>[?<query>]"`; throws RenderError on anything else. */
export function quoteRedirectTarget(value: unknown): string {
  if (typeof value !== 'object' || value === null) fail('expected a parsed target');
  const target = value as RedirectTarget;
  const absolute = target.scheme !== null;
  if (absolute !== (target.host !== null)) fail('scheme and host go together');
  if (absolute && target.scheme !== 'http' && target.scheme !== 'https') fail('scheme is not http or https');
  if (absolute && !HOST.test(String(target.host))) fail('bad host');
  if (target.port !== null && (!absolute || !Number.isInteger(target.port) || target.port < 1 || target.port > 65535)) fail('bad port');
  if (typeof target.path !== 'string' || !PATH.test(target.path) || (!absolute && target.path === '')) fail('bad path');
  if (target.query !== null && (typeof target.query !== 'string' || !QUERY.test(target.query))) fail('bad query');
  return quoteNginxLiteral(redirectTargetText(target));
}
