// The shape every validator in the builder returns: a value that passed its
// grammar, or a one-line reason. Validators never throw on bad cluster data.

/**
 * A validated value, or the reason it was refused. `unsupported`: the value is
 * valid for ingress-nginx but this controller cannot honour it (refused even
 * where ingress-nginx would ignore an invalid value and apply the default).
 */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string; readonly unsupported?: true };

/** A passed check. */
export function accept<T>(value: T): Checked<T> {
  return { ok: true, value };
}

/** A refused check; `reason` is one line and never contains the raw value unquoted. */
export function refuse<T>(reason: string): Checked<T> {
  return { ok: false, reason };
}

/** A value ingress-nginx accepts that this controller does not support (see Checked). */
export function unsupported<T>(reason: string): Checked<T> {
  return { ok: false, reason, unsupported: true };
}
