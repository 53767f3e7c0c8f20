// AdmissionReview (admission.k8s.io/v1) in and out. The body is untrusted:
// every field is checked before use, and anything that is not a v1 review of
// a networking.k8s.io/v1 Ingress is a clear 400, never a crash.

import type { V1Ingress } from '@kubernetes/client-node';
import type { BuildOptions, Snapshot } from '../model/types.ts';
import { buildModel } from '../model/build.ts';
import { decideIngressAdmission, type AdmissionDecision, type BuildFunction } from './review.ts';

/** What the HTTP layer sends back: a status code and a JSON or text body. */
export type ReviewReply =
  | { readonly status: 200; readonly body: AdmissionReviewResponse; readonly decision: AdmissionDecision }
  | { readonly status: 400; readonly error: string };

export interface AdmissionReviewResponse {
  readonly apiVersion: 'admission.k8s.io/v1';
  readonly kind: 'AdmissionReview';
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly status?: { readonly code: number; readonly message: string };
    readonly warnings?: readonly string[];
  };
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const ALLOW: AdmissionDecision = { allowed: true, message: '', warnings: [], failures: [], ingress: null };

function reply(uid: string, decision: AdmissionDecision): ReviewReply {
  const response = {
    uid,
    allowed: decision.allowed,
    ...(decision.allowed ? {} : { status: { code: 400, message: decision.message } }),
    ...(decision.warnings.length > 0 ? { warnings: decision.warnings } : {}),
  };
  return { status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }, decision };
}

const bad = (error: string): ReviewReply => ({ status: 400, error });

/** The candidate with namespace and name filled from the request (the API server may leave them out of the object on CREATE). */
function candidateOf(object: Json, request: Json): V1Ingress {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : request.namespace;
  const generated = typeof metadata.generateName === 'string' ? `${metadata.generateName}00000` : undefined;
  const name = typeof metadata.name === 'string' && metadata.name !== '' ? metadata.name : (request.name || generated);
  return { ...object, metadata: { ...metadata, namespace, name } } as V1Ingress;
}

/** Reviews one parsed AdmissionReview body against the current snapshot. */
export function reviewAdmission(body: unknown, snapshot: Snapshot, options: BuildOptions, build: BuildFunction = buildModel): ReviewReply {
  if (!isObject(body) || body.kind !== 'AdmissionReview') return bad('body is not an AdmissionReview');
  if (body.apiVersion !== 'admission.k8s.io/v1') return bad(`apiVersion ${JSON.stringify(body.apiVersion)} is not supported; use admission.k8s.io/v1`);
  const request = body.request;
  if (!isObject(request)) return bad('AdmissionReview has no request');
  if (typeof request.uid !== 'string' || request.uid === '') return bad('request.uid is missing');
  const kind = isObject(request.kind) ? request.kind : {};
  if (kind.group !== 'networking.k8s.io' || kind.version !== 'v1' || kind.kind !== 'Ingress') {
    return bad(`this webhook reviews networking.k8s.io/v1 Ingress only, not ${JSON.stringify(`${kind.group}/${kind.version} ${kind.kind}`)}`);
  }
  const operation = request.operation;
  if (operation !== 'CREATE' && operation !== 'UPDATE') return reply(request.uid, ALLOW);
  if (!isObject(request.object)) return bad(`request.object must be the Ingress for ${operation}`);
  const candidate = candidateOf(request.object, request);
  if (typeof candidate.metadata?.namespace !== 'string' || typeof candidate.metadata?.name !== 'string') {
    return bad('the Ingress has no namespace or name');
  }
  return reply(request.uid, decideIngressAdmission(candidate, snapshot, options, build));
}
