// Failures are what the builder refused: they become log lines and Warning
// Events, so their text must be one line, short, and quote user values
// (JSON quoting turns newlines and quotes into visible escapes).

import type { V1Ingress } from '@kubernetes/client-node';
import type { Failure, IngressRef } from './types.ts';

/** User values inside messages are cut to this many characters. */
const MAX_VALUE_CHARS = 100;
/** The contract's bound on a whole message. */
const MAX_MESSAGE_CHARS = 200;

/** A user value as it appears in a message: truncated, JSON-quoted, one line. */
export function quoteValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) return 'undefined';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  const cut = text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
  return JSON.stringify(cut);
}

/** Forces a message onto one line and within the contract's length. */
export function sanitiseMessage(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what we strip
  const oneLine = message.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
  return oneLine.length > MAX_MESSAGE_CHARS ? `${oneLine.slice(0, MAX_MESSAGE_CHARS - 1)}…` : oneLine;
}

/** Builds a Failure with a sanitised message. */
export function makeFailure(
  ingress: IngressRef | null,
  reason: string,
  field: string,
  message: string,
): Failure {
  return { ingress, reason, field: sanitiseMessage(field), message: sanitiseMessage(message) };
}

/** A Failure that is only a warning (Failure.warning): admission warns, the Ingress is served. */
export function makeWarning(ingress: IngressRef | null, reason: string, field: string, message: string): Failure {
  return { ...makeFailure(ingress, reason, field, message), warning: true };
}

/** The namespace/name of an Ingress as found (possibly invalid; see names.ts). */
export function ingressRefOf(ingress: V1Ingress): IngressRef {
  const meta = ingress?.metadata;
  return {
    namespace: typeof meta?.namespace === 'string' ? meta.namespace : '',
    name: typeof meta?.name === 'string' ? meta.name : '',
  };
}

/** `namespace/name`, how messages name an Ingress. */
export function describeRef(ref: IngressRef): string {
  return `${ref.namespace}/${ref.name}`;
}
