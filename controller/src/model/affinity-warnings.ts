// What ingress-nginx only warns about for session affinity: with use-regex
// and no session-cookie-path, the cookie's Path is the location's path, a
// regular expression (ingress-nginx logs "session-cookie-path should be set
// when use-regex is true" and serves it so). Here the warning also becomes a
// Warning Event on the Ingress; the Ingress is served as there.

import { makeWarning } from './failure.ts';
import type { AffinityConfig, Failure, IngressRef, RewriteConfig } from './types.ts';

/** The warnings an Ingress's affinity config earns next to its rewrite config (use-regex). */
export function affinityWarnings(ingress: IngressRef, affinity: AffinityConfig | null, rewrite: RewriteConfig): Failure[] {
  if (affinity?.enabled !== true || affinity.cookiePath !== null || !rewrite.useRegex) return [];
  return [makeWarning(ingress, 'AffinityCookiePathNotSet', 'metadata.annotations',
    'session-cookie-path should be set when use-regex is true: the affinity cookie\'s Path is the location\'s regular expression')];
}
