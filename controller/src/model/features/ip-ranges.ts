// Client addresses and ranges (CIDRs) as allow/deny lists take them: parsed
// strictly, IPv4 and IPv6, and written back in one canonical spelling, which
// is the only text of the value that reaches nginx.conf (`allow 10.0.0.0/8;`).
// ingress-nginx reads each comma-separated item with Go's net.ParseCIDR, else
// net.ParseIP (internal/net/ipnet.go), and prints it as Go does: a range's
// address with its host bits cleared, an IPv4-mapped IPv6 address as IPv4.

import { isIPv4, isIPv6 } from 'node:net';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';

/** The most items one list may hold: each is a directive every `nginx -t` and reload reads. */
export const MAX_LIST_ITEMS = 4096;

/** An address as bytes (4 or 16). */
type Bytes = number[];

function ipv4Bytes(text: string): Bytes {
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address node:net accepts (no zone: the caller refuses `%`). */
function ipv6Bytes(text: string): Bytes {
  let groups: string[];
  let tail: Bytes = [];
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    tail = ipv4Bytes(body.slice(lastColon + 1));
    body = `${body.slice(0, lastColon + 1)}0:0`;
  }
  const halves = body.split('::');
  if (halves.length === 2) {
    const left = halves[0] === '' ? [] : (halves[0] as string).split(':');
    const right = halves[1] === '' ? [] : (halves[1] as string).split(':');
    groups = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  } else {
    groups = body.split(':');
  }
  const bytes = groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function formatIPv6(bytes: Bytes): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number));
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      best = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

function isV4Mapped(bytes: Bytes): boolean {
  return bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

function clearHostBits(bytes: Bytes, prefix: number): Bytes {
  return bytes.map((byte, i) => {
    const bits = Math.min(8, Math.max(0, prefix - 8 * i));
    return byte & ((0xff << (8 - bits)) & 0xff);
  });
}

function format(bytes: Bytes): string {
  return bytes.length === 4 ? bytes.join('.') : formatIPv6(bytes);
}

/**
 * One address (`10.0.0.1`, `2001:db8::1`) or range (`10.0.0.0/8`, `2001:db8::/32`) in its canonical
 * spelling: a range's host bits cleared, IPv6 lower case and compressed, an IPv4-mapped IPv6 address
 * or range (prefix 96 or more) as IPv4. No zone, no leading zeros in IPv4 or in the prefix.
 */
export function parseAddressOrRange(text: string): Checked<string> {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? null : text.slice(slash + 1);
  let bytes: Bytes;
  if (isIPv4(address)) bytes = ipv4Bytes(address);
  else if (isIPv6(address) && !address.includes('%')) bytes = ipv6Bytes(address);
  else return refuse(`${JSON.stringify(text.slice(0, 64))} is not an IP address or range`);
  if (prefixText === null) return accept(format(isV4Mapped(bytes) ? bytes.slice(12) : bytes));
  const bits = bytes.length * 8;
  if (!/^(?:0|[1-9]\d{0,2})$/u.test(prefixText) || Number(prefixText) > bits) {
    return refuse(`${JSON.stringify(text.slice(0, 64))}: the prefix length must be 0 to ${bits}`);
  }
  let prefix = Number(prefixText);
  if (isV4Mapped(bytes)) {
    // NGINX checks an IPv4-mapped client against the IPv4 rules: the range is meant as IPv4.
    if (prefix < 96) return unsupported(`${JSON.stringify(text.slice(0, 64))}: an IPv4-mapped range needs a prefix of 96 or more`);
    bytes = bytes.slice(12);
    prefix -= 96;
  }
  return accept(`${format(clearHostBits(bytes, prefix))}/${prefix}`);
}

/** Go's strings.TrimSpace, which ingress-nginx applies to each item. */
function trimSpace(text: string): string {
  return text.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/gu, '');
}

/**
 * A comma-separated list of addresses and ranges, as ingress-nginx's allow/deny annotations read it:
 * every item must parse (an empty item too: `10.0.0.0/8,` is refused). Sorted, without repeats.
 * `dropEmpty`: empty items are skipped, as the ConfigMap's lists are read (strings.FieldsFunc).
 */
export function parseAddressList(raw: string, dropEmpty = false): Checked<readonly string[]> {
  const items = raw.split(',').map(trimSpace);
  const kept = dropEmpty ? items.filter((item) => item !== '') : items;
  if (kept.length > MAX_LIST_ITEMS) return unsupported(`at most ${MAX_LIST_ITEMS} addresses and ranges`);
  const parsed = new Set<string>();
  for (const item of kept) {
    const one = parseAddressOrRange(item);
    if (!one.ok) return one;
    parsed.add(one.value);
  }
  return accept(Object.freeze([...parsed].sort()));
}
