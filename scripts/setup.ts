// `npm run setup`: everything tests and the playground need on a fresh
// Debian 12 machine, as a short list of awaited, idempotent steps.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureDataplane } from './setup-dataplane.ts';
import { ensureHelm } from './setup-helm.ts';

const run = promisify(execFile);

/**
 * Debian 12 packages the tests and benchmarks call: luacheck (lua-check), wrk,
 * curl, openssl, and valgrind (the proxy benchmark counts instructions with callgrind).
 */
export const APT_TOOLS: readonly string[] = ['lua-check', 'wrk', 'curl', 'openssl', 'valgrind'];

async function isInstalled(pkg: string): Promise<boolean> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', pkg]);
    return stdout.includes('install ok installed');
  } catch {
    return false;
  }
}

/** Installs with the machine's apt whichever of `packages` is missing; refreshes the lists once if needed. */
export async function ensureAptTools(packages: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const pkg of packages) if (!(await isInstalled(pkg))) missing.push(pkg);
  if (missing.length === 0) return [];
  if (process.getuid?.() !== 0) {
    throw new Error(`setup: missing Debian packages ${missing.join(' ')}; install them as root (apt-get install -y ...)`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): Promise<unknown> =>
    run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, maxBuffer: 16 << 20 });
  try {
    await install();
  } catch {
    // A fresh machine may have no or stale package lists.
    await run('apt-get', ['update', '-q'], { env, maxBuffer: 16 << 20 });
    await install();
  }
  return missing;
}

async function main(): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const steps: ReadonlyArray<[string, () => Promise<string>]> = [
    ['dataplane', async () => (await ensureDataplane(root)).version],
    ['helm', async () => await ensureHelm(resolve(root, '.cache'))],
    ['apt tools', async () => `installed: ${(await ensureAptTools(APT_TOOLS)).join(' ') || 'nothing new'}`],
  ];
  for (const [name, step] of steps) {
    const started = Date.now();
    const result = await step();
    console.log(`setup: ${name}: ${result} (${Date.now() - started} ms)`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`setup failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
