// The migrate command line: kubectl's cluster flags, ingress-nginx's class
// defaults, and every contradiction a usage error (exit 2).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandLineExit } from '../cli/command-line-exit.ts';
import { chooseConfigMap } from './config-map-choice.ts';
import { INGRESS_NGINX_SELECTION, migrateHelpText, parseMigrateOptions } from './options.ts';
import type { V1ConfigMap } from '@kubernetes/client-node';

void describe('parseMigrateOptions', () => {
  void it('defaults: the cluster, text, ingress-nginx\'s classes', () => {
    const options = parseMigrateOptions([]);
    assert.deepEqual({ ...options, explicit: [...options.explicit] }, {
      paths: [], output: 'text', configMap: null, helmValues: null, kubeconfig: null, context: null, namespace: null,
      allNamespaces: false, selection: INGRESS_NGINX_SELECTION, explicit: [],
    });
  });

  const accepted: { name: string; argv: string[]; check: (options: ReturnType<typeof parseMigrateOptions>) => void }[] = [
    { name: 'paths, json, -n for objects without a namespace', argv: ['apps', 'cm.yaml', '-o', 'json', '-n', 'shop'], check: (o) => assert.deepEqual([o.paths, o.output, o.namespace], [['apps', 'cm.yaml'], 'json', 'shop']) },
    { name: 'cluster flags', argv: ['--kubeconfig', '/k', '--context', 'prod', '-A'], check: (o) => assert.deepEqual([o.kubeconfig, o.context, o.allNamespaces], ['/k', 'prod', true]) },
    { name: 'class flags given are marked explicit', argv: ['--ingress-class', 'internal', '--watch-ingress-without-class'], check: (o) => {
      assert.deepEqual([o.selection.ingressClass, o.selection.watchIngressWithoutClass], ['internal', true]);
      assert.deepEqual([...o.explicit].sort(), ['ingressClass', 'watchIngressWithoutClass']);
    } },
    { name: '--configmap', argv: ['apps', '--configmap', 'ingress-nginx/ingress-nginx-controller'], check: (o) => assert.equal(o.configMap, 'ingress-nginx/ingress-nginx-controller') },
  ];
  for (const row of accepted) void it(row.name, () => row.check(parseMigrateOptions(row.argv)));

  const refused: { name: string; argv: string[]; message: RegExp }[] = [
    { name: 'paths and --kubeconfig', argv: ['apps', '--kubeconfig', '/k'], message: /one or the other/ },
    { name: 'paths and -A', argv: ['apps', '-A'], message: /one or the other/ },
    { name: '-n and -A', argv: ['-n', 'shop', '-A'], message: /exclude each other/ },
    { name: '--configmap and --helm-values', argv: ['apps', '--configmap', 'a/b', '--helm-values', 'v.yaml'], message: /give one/ },
    { name: 'an unknown output', argv: ['-o', 'yaml'], message: /--output.*text or json/ },
    { name: 'a bad namespace', argv: ['-n', 'Shop'], message: /--namespace/ },
    { name: 'a bad --configmap', argv: ['--configmap', 'no-slash'], message: /--configmap/ },
    { name: 'an unknown flag', argv: ['--watch-namespace', 'x'], message: /unknown option/ },
  ];
  for (const row of refused) {
    void it(`usage error: ${row.name}`, () => {
      assert.throws(() => parseMigrateOptions(row.argv), (err: unknown) => err instanceof CommandLineExit && err.exitCode === 2 && row.message.test(err.output));
    });
  }

  void it('--help exits 0 with the help text, which names the exit codes', () => {
    assert.throws(() => parseMigrateOptions(['--help']), (err: unknown) => err instanceof CommandLineExit && err.exitCode === 0 && err.output === migrateHelpText());
    assert.match(migrateHelpText(), /Exit codes: 0 .* 1 .* 2 /s);
  });
});

void describe('chooseConfigMap', () => {
  const cm = (namespace: string, name: string): V1ConfigMap => ({ metadata: { namespace, name } });
  const rows: { name: string; configMaps: V1ConfigMap[]; explicit?: string; key: string | null; note?: RegExp }[] = [
    { name: 'none: defaults, and the note says how to name one', configMaps: [cm('shop', 'app-config')], key: null, note: /defaults apply/ },
    { name: 'the chart\'s name', configMaps: [cm('shop', 'x'), cm('ingress-nginx', 'ingress-nginx-controller')], key: 'ingress-nginx/ingress-nginx-controller', note: /read as ingress-nginx's/ },
    { name: 'a release-prefixed name', configMaps: [cm('edge', 'public-ingress-nginx-controller')], key: 'edge/public-ingress-nginx-controller' },
    {
      name: 'several: the chart\'s default name wins, the others are named',
      configMaps: [cm('a', 'internal-ingress-nginx-controller'), cm('z', 'ingress-nginx-controller')], key: 'z/ingress-nginx-controller', note: /also found: a\/internal-ingress-nginx-controller/,
    },
    { name: '--configmap wins over names', configMaps: [cm('ingress-nginx', 'ingress-nginx-controller'), cm('ops', 'nginx')], explicit: 'ops/nginx', key: 'ops/nginx' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const choice = chooseConfigMap(row.configMaps, row.explicit ?? null);
      assert.equal(choice.key, row.key);
      if (row.note) assert.match(choice.notes.join('\n'), row.note);
    });
  }

  void it('--configmap naming nothing in the input is a usage error', () => {
    assert.throws(() => chooseConfigMap([cm('a', 'b')], 'ingress-nginx/missing'), (err: unknown) => err instanceof CommandLineExit && err.exitCode === 2);
  });
});
