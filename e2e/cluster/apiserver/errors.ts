// API errors as Kubernetes `Status` objects: every failure a client sees is
// one of these, so clients (kubectl, client-go, client-node) can act on
// `reason` and `code` exactly as they do against a real API server.

export interface StatusCause {
  readonly reason?: string;
  readonly message: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly StatusCause[];
}

export interface StatusObject {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure' | 'Success';
  readonly message: string;
  readonly reason: string;
  readonly code: number;
  readonly details?: StatusDetails;
}

/** A failure with the HTTP code and machine-readable reason of the Kubernetes API. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): StatusObject {
    return statusObject(this.code, this.reason, this.message, this.details);
  }
}

export function statusObject(code: number, reason: string, message: string, details?: StatusDetails): StatusObject {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code,
    ...(details ? { details } : {}),
  };
}

/** Resource name as clients print it: "deployments.apps" or "pods". */
function qualified(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export function notFound(resource: string, group: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(resource, group)} "${name}" not found`, { name, group, kind: resource });
}

export function alreadyExists(resource: string, group: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(resource, group)} "${name}" already exists`, { name, group, kind: resource });
}

export function conflict(resource: string, group: string, name: string, why: string): ApiError {
  return new ApiError(409, 'Conflict',
    `Operation cannot be fulfilled on ${qualified(resource, group)} "${name}": ${why}`, { name, group, kind: resource });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function invalid(kind: string, group: string, name: string, causes: readonly StatusCause[]): ApiError {
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`,
    { name, group, kind, causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.message, field: c.field })) });
}

export function forbidden(user: string, verb: string, resource: string, group: string, namespace: string | undefined): ApiError {
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  return new ApiError(403, 'Forbidden',
    `${qualified(resource, group)} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${scope}`,
    { group, kind: resource });
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml; got ${contentType}`);
}
