// Decoding of the Kubernetes protobuf wire format for the request bodies
// clients send that way: client-go typed clients prefer protobuf for
// built-in kinds, so helm's release storage (Secrets, DeleteOptions) and
// kubectl's typed `create` commands (namespace, secret, configmap,
// serviceaccount, role, rolebinding, ...) and `kubectl auth can-i` arrive as
// `application/vnd.kubernetes.protobuf`. Other kinds get a clear 400 asking
// for JSON (`kubectl apply -f` always sends JSON). Responses are always
// JSON, which those clients also accept.
import { badRequest } from './errors.ts';
import type { Json, JsonObject } from './patch.ts';

type FieldType = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'map' | 'bytesMap' | Schema;
interface FieldSpec { readonly name: string; readonly type: FieldType; readonly repeated?: boolean }
type Schema = Readonly<Record<number, FieldSpec>>;

const TIME: Schema = { 1: { name: 'seconds', type: 'int' }, 2: { name: 'nanos', type: 'int' } };
const OWNER_REF: Schema = {
  1: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' }, 4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' }, 6: { name: 'controller', type: 'bool' }, 7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' }, 2: { name: 'generateName', type: 'string' }, 3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' }, 6: { name: 'resourceVersion', type: 'string' }, 7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' }, 9: { name: 'deletionTimestamp', type: 'time' },
  11: { name: 'labels', type: 'map' }, 12: { name: 'annotations', type: 'map' },
  13: { name: 'ownerReferences', type: OWNER_REF, repeated: true }, 14: { name: 'finalizers', type: 'string', repeated: true },
};
const POLICY_RULE: Schema = {
  1: { name: 'verbs', type: 'string', repeated: true }, 2: { name: 'apiGroups', type: 'string', repeated: true },
  3: { name: 'resources', type: 'string', repeated: true }, 4: { name: 'resourceNames', type: 'string', repeated: true },
  5: { name: 'nonResourceURLs', type: 'string', repeated: true },
};
const BINDING: Schema = {
  1: { name: 'metadata', type: OBJECT_META },
  2: { name: 'subjects', type: { 1: { name: 'kind', type: 'string' }, 2: { name: 'apiGroup', type: 'string' }, 3: { name: 'name', type: 'string' }, 4: { name: 'namespace', type: 'string' } }, repeated: true },
  3: { name: 'roleRef', type: { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } } },
};
const ROLE: Schema = { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'rules', type: POLICY_RULE, repeated: true } };
const NAME_REF: Schema = { 1: { name: 'name', type: 'string' } };
/** The kinds kubectl's typed commands (create namespace/secret/configmap/serviceaccount/role/rolebinding) and helm's storage send. */
const SCHEMAS: Readonly<Record<string, Schema>> = {
  'v1/Namespace': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
  'v1/ServiceAccount': {
    1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'secrets', type: { 2: { name: 'namespace', type: 'string' }, 3: { name: 'name', type: 'string' } }, repeated: true },
    3: { name: 'imagePullSecrets', type: NAME_REF, repeated: true }, 4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: {
      1: { name: 'resourceAttributes', type: { 1: { name: 'namespace', type: 'string' }, 2: { name: 'verb', type: 'string' }, 3: { name: 'group', type: 'string' },
        4: { name: 'version', type: 'string' }, 5: { name: 'resource', type: 'string' }, 6: { name: 'subresource', type: 'string' }, 7: { name: 'name', type: 'string' } } },
      2: { name: 'nonResourceAttributes', type: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } },
    } },
  },
  'rbac.authorization.k8s.io/v1/Role': ROLE,
  'rbac.authorization.k8s.io/v1/ClusterRole': ROLE,
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'v1/Secret': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'data', type: 'bytesMap' }, 3: { name: 'type', type: 'string' }, 4: { name: 'stringData', type: 'map' }, 5: { name: 'immutable', type: 'bool' } },
  'v1/ConfigMap': { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'data', type: 'map' }, 3: { name: 'binaryData', type: 'bytesMap' }, 4: { name: 'immutable', type: 'bool' } },
  'v1/DeleteOptions': {
    1: { name: 'gracePeriodSeconds', type: 'int' }, 2: { name: 'preconditions', type: { 1: { name: 'uid', type: 'string' }, 2: { name: 'resourceVersion', type: 'string' } } },
    3: { name: 'orphanDependents', type: 'bool' }, 4: { name: 'propagationPolicy', type: 'string' }, 5: { name: 'dryRun', type: 'string', repeated: true },
  },
};
const DELETE_OPTIONS_KEYS = ['meta.k8s.io/v1/DeleteOptions'];
const UNKNOWN: Schema = { 1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } }, 2: { name: 'raw', type: 'bytes' } };

interface Field { readonly num: number; readonly wire: number; readonly value: bigint | Buffer }

function* fields(buf: Buffer): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n; let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw badRequest('protobuf: truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const num = tag >> 3; const wire = tag & 7;
    if (wire === 0) yield { num, wire, value: varint() };
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw badRequest('protobuf: truncated field');
      yield { num, wire, value: buf.subarray(pos, pos + len) };
      pos += len;
    } else if (wire === 1 || wire === 5) { pos += wire === 1 ? 8 : 4; }
    else throw badRequest(`protobuf: unsupported wire type ${wire}`);
  }
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const out: JsonObject = {};
  for (const f of fields(buf)) {
    const spec = schema[f.num];
    if (!spec) continue; // fields this server does not keep
    let value: Json;
    const bytes = (): Buffer => { if (!(f.value instanceof Buffer)) throw badRequest(`protobuf: ${spec.name} is not length-delimited`); return f.value; };
    switch (spec.type) {
      case 'string': value = bytes().toString('utf8'); break;
      case 'bytes': value = bytes().toString('base64'); break;
      case 'int': value = Number(BigInt.asIntN(64, f.value as bigint)); break;
      case 'bool': value = f.value !== 0n; break;
      case 'time': { const t = decodeMessage(bytes(), TIME); value = new Date(Number(t.seconds ?? 0) * 1000).toISOString().replace(/\.\d+Z$/, 'Z'); break; }
      case 'map': case 'bytesMap': {
        const entry = decodeMessage(bytes(), { 1: { name: 'k', type: 'string' }, 2: { name: 'v', type: spec.type === 'map' ? 'string' : 'bytes' } });
        const map = (out[spec.name] ?? {}) as JsonObject;
        map[String(entry.k ?? '')] = entry.v ?? '';
        out[spec.name] = map;
        continue;
      }
      default: value = decodeMessage(bytes(), spec.type);
    }
    if (spec.repeated) out[spec.name] = [...((out[spec.name] as Json[] | undefined) ?? []), value];
    else if (value !== '') out[spec.name] = value; // an empty single string reads as unset, as JSON's omitempty
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decode a `k8s\0`-prefixed protobuf body into the JSON form of the object. */
export function decodeProtobuf(body: Buffer): Json {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: missing the k8s envelope');
  const unknown = decodeMessage(body.subarray(4), UNKNOWN);
  const typeMeta = (unknown.typeMeta ?? {}) as JsonObject;
  const key = `${String(typeMeta.apiVersion ?? '')}/${String(typeMeta.kind ?? '')}`;
  const schema = SCHEMAS[key] ?? (DELETE_OPTIONS_KEYS.includes(key) ? SCHEMAS['v1/DeleteOptions'] : undefined);
  if (!schema) throw badRequest(`protobuf: ${key} is not supported by this server; send JSON`);
  const obj = decodeMessage(Buffer.from(String(unknown.raw ?? ''), 'base64'), schema);
  return { apiVersion: String(typeMeta.apiVersion), kind: String(typeMeta.kind), ...obj };
}
