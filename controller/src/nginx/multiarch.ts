// Debian's names for the machine the controller runs on: the multiarch
// triplet (the folder under /usr/lib holding the libraries, the dynamic loader
// and lua-cjson's cjson.so), the loader's file name and dpkg's architecture
// (what apt downloads for). Derived from Node's process.arch, so an arm64 image
// finds its own libraries. The rows are the architectures Debian trixie and the
// official Node 24 images both publish.
export interface Multiarch {
  /** dpkg's architecture, e.g. amd64, arm64 */
  readonly dpkgArch: string;
  /** the multiarch triplet, e.g. x86_64-linux-gnu: libraries live in /usr/lib/<triplet> */
  readonly triplet: string;
  /** the dynamic loader's file name in /usr/lib/<triplet> */
  readonly loader: string;
}

const BY_NODE_ARCH: Readonly<Record<string, Multiarch>> = {
  x64: { dpkgArch: 'amd64', triplet: 'x86_64-linux-gnu', loader: 'ld-linux-x86-64.so.2' },
  arm64: { dpkgArch: 'arm64', triplet: 'aarch64-linux-gnu', loader: 'ld-linux-aarch64.so.1' },
  ppc64: { dpkgArch: 'ppc64el', triplet: 'powerpc64le-linux-gnu', loader: 'ld64.so.2' },
  s390x: { dpkgArch: 's390x', triplet: 's390x-linux-gnu', loader: 'ld64.so.1' },
};

/** Debian's names for Node's `arch` (default: this process's); throws for an architecture without a row. */
export function multiarch(arch: string = process.arch): Multiarch {
  const found = BY_NODE_ARCH[arch];
  if (!found) throw new Error(`dataplane: no Debian multiarch known for Node's arch ${arch} (known: ${Object.keys(BY_NODE_ARCH).join(', ')})`);
  return found;
}

/** The library folder of `arch` relative to a root, e.g. usr/lib/aarch64-linux-gnu. */
export function libDir(arch: string = process.arch): string {
  return `usr/lib/${multiarch(arch).triplet}`;
}
