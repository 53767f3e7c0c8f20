// events.k8s.io/v1 Events are a second view of core/v1 Events, as in
// Kubernetes: one storage, so `kubectl describe` (which reads core events)
// shows events a controller wrote through either API. The HTTP layer
// converts bodies and results between the two field layouts.
import { findByPath, type KindInfo } from './kinds.ts';
import type { JsonObject } from './patch.ts';

/** [events.k8s.io/v1 field, core/v1 field] */
const FIELD_PAIRS: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'], ['note', 'message'], ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'], ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'], ['deprecatedCount', 'count'],
  ['eventTime', 'eventTime'], ['series', 'series'], ['action', 'action'], ['reason', 'reason'], ['related', 'related'], ['type', 'type'],
];

function remap(obj: JsonObject, apiVersion: string, fromIndex: 0 | 1): JsonObject {
  const out: JsonObject = { apiVersion, kind: 'Event', metadata: obj.metadata ?? {} };
  for (const pair of FIELD_PAIRS) {
    const value = obj[pair[fromIndex]];
    if (value !== undefined) out[pair[1 - fromIndex]] = value;
  }
  return out;
}

export interface KindView {
  /** the kind the store keeps these objects as */
  readonly storage: KindInfo;
  /** request body → storage form */
  toStorage(obj: JsonObject): JsonObject;
  /** stored object → the form this URL serves */
  fromStorage(obj: JsonObject): JsonObject;
  /** a field selector key of this view → the stored field */
  field(key: string): string;
}

const identity = (obj: JsonObject): JsonObject => obj;

export function viewFor(info: KindInfo): KindView {
  if (info.group !== 'events.k8s.io') return { storage: info, toStorage: identity, fromStorage: identity, field: (k) => k };
  const core = findByPath('', 'v1', 'events');
  if (!core) throw new Error('the kind table lacks core/v1 events');
  return {
    storage: core,
    toStorage: (obj) => remap(obj, 'v1', 0),
    fromStorage: (obj) => remap(obj, 'events.k8s.io/v1', 1),
    field: (key) => {
      const [head, ...rest] = key.split('.');
      const pair = FIELD_PAIRS.find(([view]) => view === head);
      return pair ? [pair[1], ...rest].join('.') : key;
    },
  };
}

/** Rewrite each `key=value` of a field selector through the view's field map. */
export function mapFieldSelector(selector: string | undefined, view: KindView): string | undefined {
  if (!selector) return selector;
  return selector.split(',').map((part) => {
    const at = part.search(/!=|==|=/);
    return at < 0 ? part : view.field(part.slice(0, at).trim()) + part.slice(at);
  }).join(',');
}
