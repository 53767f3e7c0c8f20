// The grammars of mirror-target and mirror-host. ingress-nginx checks both
// with IsValidRegex (letters, digits and `-._~/:^$[](){}*+?|&=\`, trimmed)
// and pastes them, quoted, into nginx.conf: any NGINX variable, braces and
// regex characters get through. Here a target is an http or https URL whose
// every part matches a strict grammar, and `$request_uri` (ingress-nginx's
// documented use) is the one variable, at the end. What ingress-nginx's
// validator refuses is invalid (ignored there with a warning); what it takes
// and these grammars do not is unsupported (the Ingress is not served).

import { isIPv4 } from 'node:net';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { MirrorTarget } from '../types.ts';

/** ingress-nginx's IsValidRegex: its validator of mirror-target and mirror-host (checked trimmed). */
const INGRESS_NGINX_VALID = /^[-/._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/u;

/** One DNS label (RFC 1123, either case). */
const LABEL = '[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?';
/** A host name or dotted digits (checked as IPv4 after), an optional port: `host[:port]`. */
const HOST_PORT = new RegExp(`^(${LABEL}(?:\\.${LABEL})*)(?::([0-9]{1,5}))?$`, 'u');
/** scheme://host[:port] then the path: literal characters, then `$request_uri` or nothing. */
const URL_SHAPE = /^(https?):\/\/([^/$]+)((?:\/[-A-Za-z0-9/._~:]*)?)(\$request_uri)?$/u;

const MAX_HOST = 253;
const MAX_PATH = 1024;

/** A host name or IPv4 address and an optional port, or why not (null = fine). */
function checkHostPort(text: string): { host: string; port: number | null } | string {
  const match = HOST_PORT.exec(text);
  if (match === null) return 'expected a host name or IPv4 address, optionally with :port';
  const host = match[1] as string;
  if (host.length > MAX_HOST) return `expected a host name of at most ${MAX_HOST} characters`;
  // All-digit labels are an address or nothing: NGINX would look "999.1.1.1" up as a name.
  if (/^[0-9.]+$/u.test(host) && !isIPv4(host)) return 'expected an IPv4 address of four numbers from 0 to 255';
  if (match[2] === undefined) return { host, port: null };
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host, port } : 'expected a port from 1 to 65535';
}

/** Trimmed as ingress-nginx trims it, and whether its validator takes it. */
function trimmed(raw: string): { value: string; ingressNginxTakes: boolean } {
  const value = raw.trim();
  return { value, ingressNginxTakes: value !== '' && INGRESS_NGINX_VALID.test(value) };
}

function refusal<T>(reason: string, ingressNginxTakes: boolean): Checked<T> {
  return ingressNginxTakes ? unsupported(reason) : refuse(reason);
}

/** mirror-target: `http(s)://host[:port][/path][$request_uri]`. */
export function parseMirrorTarget(raw: string): Checked<MirrorTarget | null> {
  const { value, ingressNginxTakes } = trimmed(raw);
  const shape = URL_SHAPE.exec(value);
  if (shape === null) {
    return refusal('expected http:// or https://, a host, an optional :port and path of letters, digits and -._~/:, '
      + 'and $request_uri (the only variable) at the end', ingressNginxTakes);
  }
  const hostPort = checkHostPort(shape[2] as string);
  if (typeof hostPort === 'string') return refusal(hostPort, ingressNginxTakes);
  const path = `${shape[3] as string}${shape[4] ?? ''}`;
  if (path.length > MAX_PATH) return refusal(`expected a path of at most ${MAX_PATH} characters`, ingressNginxTakes);
  return accept({ scheme: shape[1] as 'http' | 'https', host: hostPort.host, port: hostPort.port, path });
}

/** mirror-host: the Host header of the copy, `host[:port]`. */
export function parseMirrorHost(raw: string): Checked<string | null> {
  const { value, ingressNginxTakes } = trimmed(raw);
  const hostPort = checkHostPort(value);
  if (typeof hostPort === 'string') return refusal(hostPort, ingressNginxTakes);
  return accept(value);
}

/** mirror-request-body: `on` or `off`. ingress-nginx checks it without spaces and takes anything but "off" (trimmed) as on. */
export function parseRequestBody(raw: string): Checked<boolean> {
  if (!/^(?:on|off)$/u.test(raw.replaceAll(' ', ''))) return refuse('expected on or off');
  return accept(raw.trim() !== 'off');
}
