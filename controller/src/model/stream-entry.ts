// One entry of a TCP/UDP services ConfigMap, checked against its grammar
// before anything else looks at it. ingress-nginx's format (controller.go,
// getStreamServices):
//
//   "<port>": "<namespace>/<service>:<service port>[:PROXY][:PROXY]"
//
// The first PROXY decodes the PROXY protocol from the client, the second sends
// it to the backend; either may be empty (`ns/svc:80::PROXY` sends only), and
// PROXY compares case-insensitively; on UDP they mean nothing (ingress-nginx
// ignores them: so do we, with a warning). A numeric service port is the
// Service's `spec.ports[].port`, anything else its `spec.ports[].name`.
//
// Stricter than ingress-nginx where it would misread silently: the key must be
// a plain decimal 1..65535 (Go's Atoi also takes "+80", "080" and "-1"), a
// field after the port must be PROXY or empty (ingress-nginx drops anything
// else without a word), and a fifth field is refused (it would be ignored).

import { checkNamespace, checkServiceName, checkServicePort } from './names.ts';
import { accept, refuse, type Checked } from './checked.ts';
import type { StreamProtocol, StreamProxyProtocol } from './l4-types.ts';

/** An entry that passed its grammar; the Service is looked up afterwards. */
export interface StreamEntry {
  readonly port: number;
  readonly namespace: string;
  readonly service: string;
  readonly servicePort: number | string;
  readonly proxyProtocol: StreamProxyProtocol;
  /** True when PROXY was written on a UDP entry (ignored; the caller warns). */
  readonly proxyIgnored: boolean;
}

const PORT_KEY = /^[1-9][0-9]{0,4}$/u;
const DECIMAL = /^[0-9]+$/u;

/** The listen port a ConfigMap key names: a plain decimal 1..65535. */
export function checkStreamPort(key: string): Checked<number> {
  if (!PORT_KEY.test(key) || Number(key) > 65535) return refuse('the key must be a port number from 1 to 65535 (plain decimal digits)');
  return accept(Number(key));
}

function checkProxyField(value: string | undefined, which: string): Checked<boolean> {
  if (value === undefined || value === '') return accept(false);
  if (value.toUpperCase() === 'PROXY') return accept(true);
  return refuse(`the ${which} field after the port must be PROXY or empty`);
}

function checkServiceRef(ref: string): Checked<{ namespace: string; service: string }> {
  const parts = ref.split('/');
  if (parts.length !== 2) return refuse('the Service must be written <namespace>/<name>');
  const [namespace, service] = parts as [string, string];
  const ns = checkNamespace(namespace);
  if (!ns.ok) return refuse(`Service namespace: ${ns.reason}`);
  const name = checkServiceName(service);
  if (!name.ok) return refuse(`Service name: ${name.reason}`);
  return accept({ namespace: ns.value, service: name.value });
}

function checkPortField(value: string): Checked<number | string> {
  // ingress-nginx reads digits as the Service's port number, anything else as a port name.
  const port = checkServicePort(DECIMAL.test(value) ? Number(value) : value);
  return port.ok ? port : refuse(`Service port: ${port.reason}`);
}

/** Checks one entry (`key` → `value`) of the ConfigMap for `protocol`. Never throws on bad data. */
export function parseStreamEntry(key: string, value: unknown, protocol: StreamProtocol): Checked<StreamEntry> {
  const port = checkStreamPort(key);
  if (!port.ok) return port;
  if (typeof value !== 'string') return refuse('the value must be a string');
  const fields = value.split(':');
  if (fields.length < 2 || fields.length > 4) {
    return refuse('the value must be <namespace>/<service>:<port>[:PROXY][:PROXY]');
  }
  const [ref, servicePortText, decodeText, encodeText] = fields as [string, string, string?, string?];
  const service = checkServiceRef(ref);
  if (!service.ok) return service;
  const servicePort = checkPortField(servicePortText);
  if (!servicePort.ok) return servicePort;
  const decode = checkProxyField(decodeText, 'first');
  if (!decode.ok) return decode;
  const encode = checkProxyField(encodeText, 'second');
  if (!encode.ok) return encode;
  const udp = protocol === 'UDP';
  return accept({
    port: port.value,
    ...service.value,
    servicePort: servicePort.value,
    proxyProtocol: { decode: decode.value && !udp, encode: encode.value && !udp },
    proxyIgnored: udp && (decode.value || encode.value),
  });
}
