// client-node's ObjectSerializer.deserialize, compiled once per type.
//
// The generic deserializer walks every value by its type *name*: per field it
// lower-cases the name, scans the primitives list, slices "Array<…>" and
// "{ [key: string]: …; }" apart and looks the model class up again. For the
// initial lists of a large cluster that was ~1 s of a 10,000-Ingress cold
// start, more than parsing the JSON. The decoder here reads the same
// attribute maps of the same model classes and makes the same objects (same
// classes, same renamed fields, Dates where the type says date-time), but
// resolves each type name once. typed-decoder.test.ts compares it with
// ObjectSerializer on every watched kind. client-node is pinned exactly; the
// rules mirror its ObjectSerializer.deserialize (no model has a
// discriminator, and there are no enums in its type map).

import * as models from '@kubernetes/client-node';

type Decode = (data: unknown) => unknown;

interface AttributeType {
  readonly name: string;
  readonly baseName: string;
  readonly type: string;
}

interface ModelClass {
  new (): Record<string, unknown>;
  getAttributeTypeMap(): readonly AttributeType[];
}

const PRIMITIVES = new Set(['string', 'boolean', 'double', 'integer', 'long', 'float', 'number', 'any']);
const identity: Decode = (data) => data;
const decoders = new Map<string, Decode>();

function modelClass(type: string): ModelClass | null {
  const candidate = (models as Record<string, unknown>)[type];
  return typeof candidate === 'function' && typeof (candidate as Partial<ModelClass>).getAttributeTypeMap === 'function' ? candidate as ModelClass : null;
}

function compile(type: string): Decode {
  if (PRIMITIVES.has(type.toLowerCase())) return identity;
  if (type.endsWith(' | null')) return decoderFor(type.slice(0, -' | null'.length));
  if (type.endsWith(' | undefined')) return decoderFor(type.slice(0, -' | undefined'.length));
  if (type.startsWith('Array<')) {
    const item = decoderFor(type.slice('Array<'.length, -'>'.length));
    return (data) => {
      if (data == undefined) return data;
      // map() allocates the array at its length; push() onto [] reserves 17 slots, which the
      // informer cache then keeps: at 50,000 EndpointSlices the one-address arrays alone held 36 MB.
      if (Array.isArray(data)) return data.map((value: unknown) => item(value));
      return Array.from(data as Iterable<unknown>, (value) => item(value));
    };
  }
  if (type.startsWith('{ [key: string]: ')) {
    const value = decoderFor(type.slice('{ [key: string]: '.length, -'; }'.length));
    return (data) => {
      if (data == undefined) return data;
      const out: Record<string, unknown> = {};
      for (const key in data as Record<string, unknown>) out[key] = value((data as Record<string, unknown>)[key]);
      return out;
    };
  }
  if (type === 'Date') return (data) => (data == undefined ? data : new Date(data as string));
  const model = modelClass(type);
  if (model === null) return identity;
  const attributes = model.getAttributeTypeMap().map((a) => ({ name: a.name, baseName: a.baseName, decode: decoderFor(a.type) }));
  return (data) => {
    if (data == undefined) return data;
    const instance = new model();
    for (const attribute of attributes) {
      const value = attribute.decode((data as Record<string, unknown>)[attribute.baseName]);
      if (value !== undefined) instance[attribute.name] = value;
    }
    return instance;
  };
}

/** The decoder of a client-node type name (e.g. "V1IngressList"): raw JSON in, the typed object ObjectSerializer.deserialize gives out. */
export function decoderFor(type: string): Decode {
  let decode = decoders.get(type);
  if (decode === undefined) {
    // Registered before compiling, so a type that contains itself refers to its own decoder.
    let compiled: Decode | null = null;
    decode = (data) => (compiled ??= compile(type))(data);
    decoders.set(type, decode);
    compiled = compile(type);
  }
  return decode;
}
