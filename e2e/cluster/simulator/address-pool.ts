// Loopback addresses for simulated pods: each pod gets its own 127.x.y.z so
// every pod can listen on the same container port, as pods on a cluster do.
// Fresh addresses are handed out first and freed ones are reused oldest-first,
// so a just-terminated pod's address is not at once answered by another pod.

/** Thrown for a range that is not a loopback CIDR this pool can use. */
export class AddressPoolError extends Error {
  override readonly name = 'AddressPoolError';
}

export interface AddressPool {
  /** A free address, or null when every address is in use. */
  allocate(): string | null;
  /** Gives an address back for later reuse; unknown or free addresses are ignored. */
  release(address: string): void;
  /** Addresses currently handed out. */
  inUse(): number;
  /** Addresses the range holds in all. */
  readonly size: number;
}

const SMALLEST_PREFIX = 16;

function toNumber(address: string): number {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) {
    throw new AddressPoolError(`not an IPv4 address: ${JSON.stringify(address)}`);
  }
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

function toAddress(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** Parses e.g. "127.0.1.0/24" into its usable addresses: inside 127/8, no .0 or .255 last octet. */
export function parseLoopbackRange(cidr: string): string[] {
  const match = /^([\d.]+)\/(\d{1,2})$/.exec(cidr.trim());
  if (!match) throw new AddressPoolError(`address pool must look like 127.0.1.0/24, got ${JSON.stringify(cidr)}`);
  const prefix = Number(match[2]);
  if (prefix < SMALLEST_PREFIX || prefix > 32) {
    throw new AddressPoolError(`address pool prefix must be /${SMALLEST_PREFIX}../32, got /${prefix}`);
  }
  const base = toNumber(match[1]);
  if (base >>> 24 !== 127) throw new AddressPoolError(`address pool must be inside 127.0.0.0/8, got ${cidr}`);
  const size = 2 ** (32 - prefix);
  const first = base - (base % size);
  const addresses: string[] = [];
  for (let value = first; value < first + size; value++) {
    const last = value & 255;
    // .0 and .255 are legal on loopback but read like network/broadcast addresses in logs.
    if (last !== 0 && last !== 255) addresses.push(toAddress(value));
  }
  if (addresses.length === 0) throw new AddressPoolError(`address pool ${cidr} holds no usable address`);
  return addresses;
}

export function createAddressPool(cidr: string): AddressPool {
  const fresh = parseLoopbackRange(cidr);
  const size = fresh.length;
  fresh.reverse(); // pop() then hands out the lowest first
  const freed: string[] = [];
  const used = new Set<string>();
  return {
    size,
    allocate(): string | null {
      const address = fresh.pop() ?? freed.shift() ?? null;
      if (address !== null) used.add(address);
      return address;
    },
    release(address: string): void {
      if (used.delete(address)) freed.push(address);
    },
    inUse: () => used.size,
  };
}
