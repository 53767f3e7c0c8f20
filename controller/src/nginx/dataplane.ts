// Where the data-plane runtime lives and how to run it: either an unpacked
// Debian trixie tree (tests, the playground: `npm run setup` fills
// <repo>/.cache/dataplane) run through its own dynamic loader, or the image's
// system paths. Reads the environment only when called.
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libDir, multiarch } from './multiarch.ts';

export interface Dataplane {
  /** argv prefix that runs nginx, e.g. [<root>/usr/lib/<triplet>/<loader>, '--library-path', <libdir>, <root>/usr/sbin/nginx] or ['/usr/sbin/nginx'] */
  readonly command: readonly string[];
  /** absolute paths for `load_module`, in load order (ndk before lua) */
  readonly modules: readonly string[];
  /**
   * absolute path of ngx_stream_module.so (libnginx-mod-stream): loaded only by a configuration
   * with TCP/UDP services, so an HTTP-only NGINX pays nothing for it
   */
  readonly streamModule: string;
  /**
   * absolute path of ngx_stream_js_module.so (libnginx-mod-stream-js, njs): loaded with the stream
   * module, it picks the TCP/UDP endpoints the controller feeds without a reload
   */
  readonly streamJsModule: string;
  /** absolute path of resty_stream.js, the njs module stream {} imports (rootfs/etc/nginx/njs in a checkout) */
  readonly streamScript: string;
  /** value for lua_package_path: our lua/ dir first, then lua-resty-core etc., ending in ';;' */
  readonly luaPackagePath: string;
  /** value for lua_package_cpath (cjson) */
  readonly luaPackageCPath: string;
}

export interface FindDataplaneOptions {
  /** The unpacked runtime; '/' (or none found) means the image's system paths. */
  readonly root?: string;
  /** The folder holding resty_ingress/*.lua. */
  readonly luaDir?: string;
  /** Node's name of the architecture whose library paths to use (default: process.arch). */
  readonly arch?: string;
}

// Debian's merged-/usr layout puts the loader in the multiarch dir; older trees only in (usr/)lib64 or lib.
const LOADER_DIRS = ['usr/lib64', 'lib64', 'lib'];
const MODULE_FILES = ['ndk_http_module.so', 'ngx_http_lua_module.so'];
const STREAM_MODULE_FILE = 'ngx_stream_module.so';
const STREAM_JS_MODULE_FILE = 'ngx_stream_js_module.so';
const STREAM_SCRIPT = 'resty_stream.js';
const MODULE_DIR = 'usr/lib/nginx/modules';
const IMAGE_LUA_DIR = '/etc/nginx/lua';
const IMAGE_NJS_DIR = '/etc/nginx/njs';

/**
 * The repository root: the nearest folder above this module that holds lua/resty_ingress. The
 * module is controller/src/nginx/dataplane.ts in a checkout, but a chunk of the bundle under
 * dist/chunks/ when the build runs from one (bench: the controller as shipped); in the image
 * (/app/chunks) no folder above holds it, and the file-relative answer finds no checkout there.
 */
export function repoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'lua/resty_ingress'))) return dir;
  }
  return resolve(here, '../../..');
}

function defaultRoot(): string | null {
  const fromEnv = process.env.RESTY_DATAPLANE_ROOT;
  if (fromEnv) return resolve(fromEnv);
  const cache = join(repoRoot(), '.cache/dataplane');
  return existsSync(cache) ? cache : null;
}

function packagePaths(root: string, luaDir: string, arch: string): Pick<Dataplane, 'luaPackagePath' | 'luaPackageCPath'> {
  const share = join(root, 'usr/share/lua/5.1');
  return {
    luaPackagePath: `${luaDir}/?.lua;${share}/?.lua;${share}/?/init.lua;;`,
    luaPackageCPath: `${join(root, libDir(arch), 'lua/5.1')}/?.so;;`,
  };
}

/** The runtime unpacked under `root`, run through its own loader so its glibc and OpenSSL are used. */
export function dataplaneAt(root: string, luaDir: string, arch: string = process.arch): Dataplane {
  const { loader: loaderName } = multiarch(arch);
  const loader = [libDir(arch), ...LOADER_DIRS].map((dir) => join(root, dir, loaderName)).find((path) => existsSync(path));
  if (!loader) throw new Error(`dataplane: no ${loaderName} under ${root} (run npm run setup)`);
  const nginx = join(root, 'usr/sbin/nginx');
  if (!existsSync(nginx)) throw new Error(`dataplane: no nginx at ${nginx} (run npm run setup)`);
  // A tree unpacked from an older package list: say so here, not as a load_module error later.
  const streamModule = join(root, MODULE_DIR, STREAM_MODULE_FILE);
  const streamJsModule = join(root, MODULE_DIR, STREAM_JS_MODULE_FILE);
  for (const module of [streamModule, streamJsModule]) {
    if (!existsSync(module)) throw new Error(`dataplane: no ${basename(module)} under ${root} (the package list changed: run npm run setup)`);
  }
  return {
    command: [loader, '--library-path', join(root, libDir(arch)), nginx],
    modules: MODULE_FILES.map((file) => join(root, MODULE_DIR, file)),
    streamModule,
    streamJsModule,
    streamScript: join(repoRoot(), 'rootfs/etc/nginx/njs', STREAM_SCRIPT),
    ...packagePaths(root, luaDir, arch),
  };
}

/** The image's own packages at their system paths (cjson.so in the architecture's multiarch folder). */
export function systemDataplane(luaDir: string, arch: string = process.arch): Dataplane {
  return {
    command: ['/usr/sbin/nginx'],
    modules: MODULE_FILES.map((file) => join('/usr/lib/nginx/modules', file)),
    streamModule: join('/usr/lib/nginx/modules', STREAM_MODULE_FILE),
    streamJsModule: join('/usr/lib/nginx/modules', STREAM_JS_MODULE_FILE),
    streamScript: join(IMAGE_NJS_DIR, STREAM_SCRIPT),
    ...packagePaths('/', luaDir, arch),
  };
}

/**
 * root: the unpacked runtime (default: env RESTY_DATAPLANE_ROOT, else
 * <repo>/.cache/dataplane if present, else the system paths of the image).
 * luaDir defaults to <repo>/lua for an unpacked runtime, /etc/nginx/lua in the image.
 */
export function findDataplane(opts: FindDataplaneOptions = {}): Dataplane {
  const root = opts.root !== undefined ? resolve(opts.root) : defaultRoot();
  if (root === null || root === '/') return systemDataplane(opts.luaDir ?? IMAGE_LUA_DIR, opts.arch);
  return dataplaneAt(root, opts.luaDir ?? join(repoRoot(), 'lua'), opts.arch);
}
