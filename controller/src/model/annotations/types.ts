// The annotation framework's contract: one small spec per annotation, each
// with a strict parser. A spec writes exactly one field of AnnotationValues,
// so adding an annotation is: a field here, a default, a spec, a registry row.

import type { Checked } from '../checked.ts';
import type { LoadBalance } from '../types.ts';

/**
 * Where an annotation applies (COMPAT.md's scope column):
 * - `ingress`: the Ingress as a whole (server-level settings; oldest Ingress wins on conflicts);
 * - `location`: the paths of the Ingress that carries it.
 * In the first set both end up on the carrying Ingress's own locations; the
 * scope is kept so server-level annotations can be resolved oldest-wins later.
 */
export type AnnotationScope = 'ingress' | 'location';

/** Every setting annotations can produce for one Ingress, after validation and defaulting. */
export interface AnnotationValues {
  /** rewrite-target: the replacement path, or null. */
  readonly rewriteTarget: string | null;
  /** use-regex: ImplementationSpecific paths are regex locations. */
  readonly useRegex: boolean;
  /** proxy-body-size: NGINX size token. */
  readonly bodySize: string;
  /** proxy-connect-timeout in seconds. */
  readonly connectTimeout: number;
  /** proxy-read-timeout in seconds. */
  readonly readTimeout: number;
  /** proxy-send-timeout in seconds. */
  readonly sendTimeout: number;
  /** backend-protocol. */
  readonly protocol: 'HTTP' | 'HTTPS';
  /** load-balance: lives on the Backend (oldest Ingress wins). */
  readonly loadBalance: LoadBalance;
  /** ssl-redirect: redirect plain HTTP to HTTPS when the host has TLS. */
  readonly sslRedirect: boolean;
  /** force-ssl-redirect: redirect plain HTTP to HTTPS even without TLS. */
  readonly forceSslRedirect: boolean;
}

/** One annotation: its key (without the prefix), scope, target field and strict parser. */
export interface AnnotationSpec<F extends keyof AnnotationValues> {
  /** The key after `<prefix>/`, e.g. `proxy-body-size`. */
  readonly key: string;
  readonly scope: AnnotationScope;
  /** The AnnotationValues field this annotation sets. */
  readonly field: F;
  /** Validates the raw value; never throws. */
  parse(value: string): Checked<AnnotationValues[F]>;
}

/** Any annotation spec (the registry holds a mix of fields). */
export type AnyAnnotationSpec = { [F in keyof AnnotationValues]: AnnotationSpec<F> }[keyof AnnotationValues];
