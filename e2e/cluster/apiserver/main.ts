// CLI: start the local API server, write a kubeconfig, print its path, and
// run until interrupted. Usage: node e2e/cluster/apiserver/main.ts [--port N] [--rbac] [--kubeconfig PATH]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './server.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      rbac: { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${values.port}"`);
  if (!values.host.startsWith('127.') && values.host !== 'localhost') throw new Error('--host must be a loopback address');
  const server = await startApiServer({ host: values.host, port, rbac: values.rbac });
  const path = values.kubeconfig ?? join(await mkdtemp(join(tmpdir(), 'resty-apiserver-')), 'kubeconfig');
  await server.writeKubeconfig(path);
  process.stdout.write(`${path}\n`);
  process.stderr.write(`API server at ${server.url}; export KUBECONFIG=${path}\n`);
  const shutdown = (): void => { void server.stop().then(() => process.exit(0)); };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`apiserver: ${(err as Error).message}\n`);
  process.exit(1);
});
