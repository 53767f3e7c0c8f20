import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';

import { chooseKubeConfigSource, KubeConfigError, loadKubeConfig } from './kubeconfig.ts';
import type { KubeConfigSource, LoadKubeConfigOptions } from './kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));

function kubeconfigFile(name: string, server: string, currentContext = 'ctx'): string {
  const path = join(dir, name);
  writeFileSync(path, [
    'apiVersion: v1', 'kind: Config', `current-context: ${currentContext}`,
    `clusters: [{name: ${name}, cluster: {server: "${server}"}}]`,
    `users: [{name: ${name}-user, user: {token: t}}]`,
    `contexts: [{name: ctx, context: {cluster: ${name}, user: ${name}-user}}]`,
  ].join('\n'));
  return path;
}

void describe('chooseKubeConfigSource', () => {
  const inPod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const rows: { name: string; options: LoadKubeConfigOptions; expected: KubeConfigSource }[] = [
    {
      name: '--kubeconfig wins over KUBECONFIG and the pod environment',
      options: { kubeconfig: '/x/config', env: { ...inPod, KUBECONFIG: '/y/config' } },
      expected: { kind: 'file', path: '/x/config' },
    },
    {
      name: 'KUBECONFIG (several files) wins over the pod environment',
      options: { env: { ...inPod, KUBECONFIG: `/a${delimiter}${delimiter}/b` } },
      expected: { kind: 'env', paths: ['/a', '/b'] },
    },
    { name: 'in a pod: the service account', options: { env: inPod }, expected: { kind: 'in-cluster' } },
    {
      name: 'an empty --kubeconfig and KUBECONFIG count as unset',
      options: { kubeconfig: '', env: { KUBECONFIG: '' } },
      expected: { kind: 'default' },
    },
    { name: 'nothing set: ~/.kube/config', options: { env: {} }, expected: { kind: 'default' } },
  ];
  for (const row of rows) {
    void it(row.name, () => assert.deepEqual(chooseKubeConfigSource(row.options), row.expected));
  }
});

void describe('loadKubeConfig', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('loads --kubeconfig', () => {
    const kc = loadKubeConfig({ kubeconfig: kubeconfigFile('one', 'https://127.0.0.1:6443'), env: {} });
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  });

  void it('merges KUBECONFIG files, the first one choosing the context', () => {
    const first = kubeconfigFile('first', 'https://127.0.0.1:1111');
    const second = kubeconfigFile('second', 'https://127.0.0.1:2222', 'other');
    const kc = loadKubeConfig({ env: { KUBECONFIG: `${first}${delimiter}${second}` } });
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:1111');
    assert.deepEqual(kc.getClusters().map((c) => c.name), ['first', 'second']);
    // Both files define context "ctx": the first file's wins, as with kubectl.
    assert.equal(kc.getContextObject('ctx')?.cluster, 'first');
  });

  const overrides: { name: string; options: () => LoadKubeConfigOptions; server: string; caFile: string | undefined; token: string }[] = [
    {
      name: '--apiserver-host replaces the server, the credentials stay',
      options: () => ({ kubeconfig: kubeconfigFile('moved', 'https://127.0.0.1:1'), apiserverHost: 'https://127.0.0.1:6443', env: {} }),
      server: 'https://127.0.0.1:6443', caFile: undefined, token: 't',
    },
    {
      name: '--certificate-authority with --apiserver-host: the CA file',
      options: () => ({ kubeconfig: kubeconfigFile('ca', 'https://127.0.0.1:1'), apiserverHost: 'https://127.0.0.1:6443', certificateAuthority: '/etc/ca.crt', env: {} }),
      server: 'https://127.0.0.1:6443', caFile: '/etc/ca.crt', token: 't',
    },
    {
      name: '--certificate-authority alone is not read (as in ingress-nginx)',
      options: () => ({ kubeconfig: kubeconfigFile('caonly', 'https://127.0.0.1:7443'), certificateAuthority: '/etc/ca.crt', env: {} }),
      server: 'https://127.0.0.1:7443', caFile: undefined, token: 't',
    },
    {
      name: 'an empty --apiserver-host is unset',
      options: () => ({ kubeconfig: kubeconfigFile('empty', 'https://127.0.0.1:7443'), apiserverHost: '', env: {} }),
      server: 'https://127.0.0.1:7443', caFile: undefined, token: 't',
    },
  ];
  for (const row of overrides) {
    void it(row.name, () => {
      const kc = loadKubeConfig(row.options());
      assert.equal(kc.getCurrentCluster()?.server, row.server);
      assert.equal(kc.getCurrentCluster()?.caFile, row.caFile);
      assert.equal(kc.getCurrentUser()?.token, row.token);
    });
  }

  const failures: { name: string; options: () => LoadKubeConfigOptions; message: RegExp }[] = [
    {
      name: 'a missing file names the flag and the path',
      options: () => ({ kubeconfig: join(dir, 'absent'), env: {} }),
      message: /--kubeconfig .*absent/,
    },
    {
      name: 'a context naming no cluster',
      options: () => ({ kubeconfig: kubeconfigFile('nocontext', 'https://127.0.0.1:1', 'missing'), env: {} }),
      message: /names no cluster/,
    },
    {
      name: 'a server that is not a URL',
      options: () => ({ kubeconfig: kubeconfigFile('badurl', 'not a url'), env: {} }),
      message: /invalid server URL/,
    },
  ];
  for (const row of failures) {
    void it(`fails clearly: ${row.name}`, () => {
      assert.throws(() => loadKubeConfig(row.options()), (err: unknown) =>
        err instanceof KubeConfigError && row.message.test(err.message));
    });
  }
});
