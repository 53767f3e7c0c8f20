import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import packageJson from '../../../package.json' with { type: 'json' };
import { CommandLineExit, printCommandLineExit } from './command-line-exit.ts';
import { helpText, parseOptions } from './options.ts';
import type { ControllerOptions } from './options.ts';

const DEFAULTS: ControllerOptions = {
  kubeconfig: null,
  apiserverHost: null,
  certificateAuthority: null,
  ingressClass: 'resty',
  controllerClass: 'resty-ingress.dev/controller',
  watchIngressWithoutClass: false,
  ingressClassByName: false,
  disableCatchAll: false,
  watchNamespace: null,
  configMap: null,
  defaultSslCertificate: null,
  defaultBackendService: null,
  annotationsPrefix: 'nginx.ingress.kubernetes.io',
  httpPort: 80,
  httpsPort: 443,
  statusPort: 10246,
  healthzPort: 10254,
  healthzHost: null,
  healthCheckPath: '/healthz',
  bindAddress: '0.0.0.0',
  nginxPrefix: '/tmp/resty-ingress',
  workerProcesses: 'auto',
  syncRateLimit: 50,
  logLevel: 'info',
  publishService: null,
  electionId: 'ingress-controller-leader',
  updateStatus: true,
  publishStatusAddress: [],
  updateStatusOnShutdown: true,
  electionTtlMs: 30_000,
  disableLeaderElection: false,
  disableSyncEvents: false,
  validatingWebhook: null,
  validatingWebhookCertificate: null,
  validatingWebhookKey: null,
  validatingWebhookSecret: null,
  validatingWebhookConfiguration: null,
  validatingWebhookService: null,
  validatingWebhookCertificateValidityMs: 8760 * 3_600_000,
  enableMetrics: true,
  reportStatusClasses: false,
  metricsPerHost: true,
  shutdownGracePeriod: 0,
  tcpServicesConfigMap: null,
  udpServicesConfigMap: null,
  reservedPorts: [
    { port: 80, flag: '--http-port' }, { port: 443, flag: '--https-port' },
    { port: 10246, flag: '--status-port' }, { port: 10254, flag: '--healthz-port' },
  ],
  flagNotices: [],
};

/** The reserved ports parseOptions must derive from the port flags of `options`. */
function portsOf(options: ControllerOptions): ControllerOptions['reservedPorts'] {
  return [
    { port: options.httpPort, flag: '--http-port' }, { port: options.httpsPort, flag: '--https-port' },
    { port: options.statusPort, flag: '--status-port' }, { port: options.healthzPort, flag: '--healthz-port' },
    ...(options.validatingWebhook === null ? [] : [{ port: Number(options.validatingWebhook.split(':').pop()), flag: '--validating-webhook' }]),
  ];
}

/** Runs parseOptions and returns the CommandLineExit it must throw. */
function exitOf(argv: string[]): CommandLineExit {
  try {
    parseOptions(argv);
  } catch (err) {
    if (err instanceof CommandLineExit) return err;
    throw err;
  }
  return assert.fail(`parseOptions(${JSON.stringify(argv)}) did not exit`);
}

void describe('parseOptions', () => {
  void it('defaults: no flags give ingress-nginx defaults except the class names', () => {
    const options = parseOptions([]);
    assert.deepEqual(options, DEFAULTS);
    assert.ok(Object.isFrozen(options));
  });

  const flagRows: { name: string; argv: string[]; expected: Partial<ControllerOptions> }[] = [
    { name: '--kubeconfig', argv: ['--kubeconfig', '/home/me/.kube/dev'], expected: { kubeconfig: '/home/me/.kube/dev' } },
    { name: '--ingress-class (= form)', argv: ['--ingress-class=nginx'], expected: { ingressClass: 'nginx' } },
    { name: '--controller-class', argv: ['--controller-class', 'k8s.io/ingress-nginx'], expected: { controllerClass: 'k8s.io/ingress-nginx' } },
    { name: '--watch-ingress-without-class bare', argv: ['--watch-ingress-without-class'], expected: { watchIngressWithoutClass: true } },
    { name: '--watch-ingress-without-class=true', argv: ['--watch-ingress-without-class=true'], expected: { watchIngressWithoutClass: true } },
    { name: '--ingress-class-by-name=1', argv: ['--ingress-class-by-name=1'], expected: { ingressClassByName: true } },
    { name: '--watch-namespace', argv: ['--watch-namespace', 'team-a'], expected: { watchNamespace: 'team-a' } },
    { name: '--watch-namespace "" means all', argv: ['--watch-namespace', ''], expected: { watchNamespace: null } },
    { name: '--configmap', argv: ['--configmap', 'ingress/resty-config'], expected: { configMap: 'ingress/resty-config' } },
    { name: '--default-ssl-certificate', argv: ['--default-ssl-certificate', 'ingress/wildcard-tls'], expected: { defaultSslCertificate: 'ingress/wildcard-tls' } },
    { name: '--default-backend-service', argv: ['--default-backend-service=ingress/fallback'], expected: { defaultBackendService: 'ingress/fallback' } },
    { name: '--annotations-prefix', argv: ['--annotations-prefix', 'resty.example.com'], expected: { annotationsPrefix: 'resty.example.com' } },
    { name: '--http-port', argv: ['--http-port', '8080'], expected: { httpPort: 8080 } },
    { name: '--https-port', argv: ['--https-port', '8443'], expected: { httpsPort: 8443 } },
    { name: '--status-port', argv: ['--status-port', '18080'], expected: { statusPort: 18080 } },
    { name: '--healthz-port', argv: ['--healthz-port', '1'], expected: { healthzPort: 1 } },
    { name: '--bind-address IPv4', argv: ['--bind-address', '127.0.0.1'], expected: { bindAddress: '127.0.0.1' } },
    { name: '--bind-address IPv6', argv: ['--bind-address', '::1'], expected: { bindAddress: '::1' } },
    { name: '--nginx-prefix', argv: ['--nginx-prefix', '/var/run/resty'], expected: { nginxPrefix: '/var/run/resty' } },
    { name: '--worker-processes number', argv: ['--worker-processes', '4'], expected: { workerProcesses: 4 } },
    { name: '--sync-rate-limit fraction', argv: ['--sync-rate-limit', '0.3'], expected: { syncRateLimit: 0.3 } },
    { name: '--log-level', argv: ['--log-level', 'debug'], expected: { logLevel: 'debug' } },
    { name: '--publish-service', argv: ['--publish-service', 'ingress/resty-controller'], expected: { publishService: 'ingress/resty-controller' } },
    { name: '--election-id', argv: ['--election-id', 'resty-leader'], expected: { electionId: 'resty-leader' } },
    { name: '--update-status=false', argv: ['--update-status=false'], expected: { updateStatus: false } },
    { name: '--publish-status-address list', argv: ['--publish-status-address', '10.0.0.1, lb.example.com,::1'], expected: { publishStatusAddress: ['10.0.0.1', 'lb.example.com', '::1'] } },
    { name: '--update-status-on-shutdown=false', argv: ['--update-status-on-shutdown=false'], expected: { updateStatusOnShutdown: false } },
    { name: '--election-ttl 1m', argv: ['--election-ttl', '1m'], expected: { electionTtlMs: 60_000 } },
    { name: '--election-ttl 1500ms', argv: ['--election-ttl=1500ms'], expected: { electionTtlMs: 1500 } },
    { name: '--disable-leader-election', argv: ['--disable-leader-election'], expected: { disableLeaderElection: true } },
    { name: '--disable-catch-all', argv: ['--disable-catch-all'], expected: { disableCatchAll: true } },
    { name: '--apiserver-host and --certificate-authority', argv: ['--apiserver-host=https://10.0.0.1:6443', '--certificate-authority', '/etc/ca.crt'],
      expected: { apiserverHost: 'https://10.0.0.1:6443', certificateAuthority: '/etc/ca.crt' } },
    { name: '--apiserver-host over plain HTTP (a kubectl proxy beside it)', argv: ['--apiserver-host=http://127.0.0.1:8001'], expected: { apiserverHost: 'http://127.0.0.1:8001' } },
    { name: '--healthz-host', argv: ['--healthz-host=127.0.0.1'], expected: { healthzHost: '127.0.0.1' } },
    { name: '--healthz-host empty: --bind-address', argv: ['--healthz-host='], expected: { healthzHost: null } },
    { name: '--health-check-path', argv: ['--health-check-path', '/live'], expected: { healthCheckPath: '/live' } },
    { name: '--disable-sync-events', argv: ['--disable-sync-events'], expected: { disableSyncEvents: true } },
    {
      name: '--validating-webhook with its certificate and key',
      argv: ['--validating-webhook', ':8443', '--validating-webhook-certificate', '/certs/tls.crt', '--validating-webhook-key', '/certs/tls.key'],
      expected: { validatingWebhook: ':8443', validatingWebhookCertificate: '/certs/tls.crt', validatingWebhookKey: '/certs/tls.key' },
    },
    {
      name: '--validating-webhook with a certificate the controller manages',
      argv: ['--validating-webhook', ':8443', '--validating-webhook-secret', 'ingress/hook', '--validating-webhook-configuration', 'hook',
        '--validating-webhook-service', 'ingress/hook-svc', '--validating-webhook-certificate-validity', '720h'],
      expected: {
        validatingWebhook: ':8443', validatingWebhookSecret: 'ingress/hook', validatingWebhookConfiguration: 'hook',
        validatingWebhookService: 'ingress/hook-svc', validatingWebhookCertificateValidityMs: 720 * 3_600_000,
      },
    },
    { name: '--validating-webhook-certificate-validity 30s (tests)', argv: ['--validating-webhook-certificate-validity=30s'], expected: { validatingWebhookCertificateValidityMs: 30_000 } },
    { name: '--enable-metrics=false', argv: ['--enable-metrics=false'], expected: { enableMetrics: false } },
    { name: '--enable-metrics 0 (separate value)', argv: ['--enable-metrics', '0'], expected: { enableMetrics: false } },
    { name: '--enable-metrics bare', argv: ['--enable-metrics'], expected: { enableMetrics: true } },
    { name: '--report-status-classes', argv: ['--report-status-classes'], expected: { reportStatusClasses: true } },
    { name: '--metrics-per-host=false', argv: ['--metrics-per-host=false'], expected: { metricsPerHost: false } },
    { name: '--shutdown-grace-period 15', argv: ['--shutdown-grace-period', '15'], expected: { shutdownGracePeriod: 15 } },
    { name: '--tcp-services-configmap', argv: ['--tcp-services-configmap', 'ingress/tcp-services'], expected: { tcpServicesConfigMap: 'ingress/tcp-services' } },
    { name: '--udp-services-configmap=', argv: ['--udp-services-configmap=ingress/udp-services'], expected: { udpServicesConfigMap: 'ingress/udp-services' } },
    { name: 'moved ports are the reserved ones', argv: ['--http-port', '8080', '--healthz-port', '9000'], expected: { httpPort: 8080, healthzPort: 9000 } },
    { name: 'the last repeat wins', argv: ['--http-port', '81', '--http-port', '82'], expected: { httpPort: 82 } },
  ];
  for (const row of flagRows) {
    void it(`flag ${row.name}`, () => {
      const expected = { ...DEFAULTS, ...row.expected };
      assert.deepEqual(parseOptions(row.argv), { ...expected, reservedPorts: portsOf(expected) });
    });
  }

  const badRows: { name: string; argv: string[]; flag: string }[] = [
    { name: 'port not a number', argv: ['--http-port', 'eighty'], flag: '--http-port' },
    { name: 'port 0', argv: ['--https-port', '0'], flag: '--https-port' },
    { name: 'port above 65535', argv: ['--status-port', '65536'], flag: '--status-port' },
    { name: 'port with a fraction', argv: ['--healthz-port', '10.5'], flag: '--healthz-port' },
    { name: 'ports that clash', argv: ['--https-port', '80'], flag: '--https-port' },
    { name: 'configmap without a namespace', argv: ['--configmap', 'just-a-name'], flag: '--configmap' },
    { name: 'default-ssl-certificate without a namespace', argv: ['--default-ssl-certificate', 'tls'], flag: '--default-ssl-certificate' },
    { name: 'default backend with three parts', argv: ['--default-backend-service', 'a/b/c'], flag: '--default-backend-service' },
    { name: 'publish service with upper case', argv: ['--publish-service', 'NS/svc'], flag: '--publish-service' },
    { name: 'namespace with a slash', argv: ['--watch-namespace', 'a/b'], flag: '--watch-namespace' },
    { name: 'log level not in the enum', argv: ['--log-level', 'verbose'], flag: '--log-level' },
    { name: 'sync rate 0', argv: ['--sync-rate-limit', '0'], flag: '--sync-rate-limit' },
    { name: 'sync rate negative', argv: ['--sync-rate-limit=-1'], flag: '--sync-rate-limit' },
    { name: 'sync rate not a number', argv: ['--sync-rate-limit', 'fast'], flag: '--sync-rate-limit' },
    { name: 'worker processes 0', argv: ['--worker-processes', '0'], flag: '--worker-processes' },
    { name: 'bind address a host name', argv: ['--bind-address', 'localhost'], flag: '--bind-address' },
    { name: 'nginx prefix relative', argv: ['--nginx-prefix', 'tmp/x'], flag: '--nginx-prefix' },
    { name: 'nginx prefix with a semicolon', argv: ['--nginx-prefix', '/tmp/x;evil'], flag: '--nginx-prefix' },
    { name: 'nginx prefix climbing out', argv: ['--nginx-prefix', '/tmp/../etc'], flag: '--nginx-prefix' },
    { name: 'boolean not a boolean', argv: ['--update-status=maybe'], flag: '--update-status' },
    { name: 'enable-metrics not a boolean', argv: ['--enable-metrics=off'], flag: '--enable-metrics' },
    { name: 'ingress class with spaces', argv: ['--ingress-class', 'my class'], flag: '--ingress-class' },
    { name: 'controller class without a domain', argv: ['--controller-class', 'controller'], flag: '--controller-class' },
    { name: 'annotations prefix with trailing slash', argv: ['--annotations-prefix', 'nginx.ingress.kubernetes.io/'], flag: '--annotations-prefix' },
    { name: 'election id with upper case', argv: ['--election-id', 'Leader'], flag: '--election-id' },
    { name: 'status address with a space inside', argv: ['--publish-status-address', '10.0.0.1,a b'], flag: '--publish-status-address' },
    { name: 'election ttl without a number', argv: ['--election-ttl', 'soon'], flag: '--election-ttl' },
    { name: 'election ttl 0', argv: ['--election-ttl', '0s'], flag: '--election-ttl' },
    { name: 'webhook address without a port', argv: ['--validating-webhook', '127.0.0.1'], flag: '--validating-webhook' },
    { name: 'webhook address with a host name', argv: ['--validating-webhook', 'localhost:8443'], flag: '--validating-webhook' },
    { name: 'webhook without certificate and key', argv: ['--validating-webhook', ':8443'], flag: '--validating-webhook-certificate' },
    { name: 'webhook Secret and certificate files both', argv: ['--validating-webhook', ':8443', '--validating-webhook-secret', 'ingress/hook', '--validating-webhook-configuration', 'hook', '--validating-webhook-service', 'ingress/hook', '--validating-webhook-certificate', '/c', '--validating-webhook-key', '/k'], flag: '--validating-webhook-secret' },
    { name: 'webhook Secret without the configuration', argv: ['--validating-webhook', ':8443', '--validating-webhook-secret', 'ingress/hook', '--validating-webhook-service', 'ingress/hook'], flag: '--validating-webhook-configuration' },
    { name: 'webhook Secret without the Service', argv: ['--validating-webhook', ':8443', '--validating-webhook-secret', 'ingress/hook', '--validating-webhook-configuration', 'hook'], flag: '--validating-webhook-service' },
    { name: 'webhook Secret without the webhook', argv: ['--validating-webhook-secret', 'ingress/hook', '--validating-webhook-configuration', 'hook', '--validating-webhook-service', 'ingress/hook'], flag: '--validating-webhook' },
    { name: 'webhook Secret without a namespace', argv: ['--validating-webhook-secret', 'hook'], flag: '--validating-webhook-secret' },
    { name: 'certificate validity under 10s', argv: ['--validating-webhook-certificate-validity', '5s'], flag: '--validating-webhook-certificate-validity' },
    { name: 'certificate validity over ten years', argv: ['--validating-webhook-certificate-validity', '87601h'], flag: '--validating-webhook-certificate-validity' },
    { name: 'grace period with a unit', argv: ['--shutdown-grace-period', '15s'], flag: '--shutdown-grace-period' },
    { name: 'grace period over an hour', argv: ['--shutdown-grace-period', '3601'], flag: '--shutdown-grace-period' },
    { name: 'missing value', argv: ['--http-port'], flag: '--http-port' },
    { name: 'unknown flag', argv: ['--enable-magic'], flag: '--enable-magic' },
    { name: 'tcp services ConfigMap without a namespace', argv: ['--tcp-services-configmap', 'tcp-services'], flag: '--tcp-services-configmap' },
    { name: 'udp services ConfigMap with upper case', argv: ['--udp-services-configmap', 'ingress/UDP'], flag: '--udp-services-configmap' },
    { name: 'misspelt flag', argv: ['--ingress-clas', 'x'], flag: '--ingress-clas' },
    { name: 'healthz host a host name', argv: ['--healthz-host=localhost'], flag: '--healthz-host' },
    { name: 'API server without a scheme', argv: ['--apiserver-host=10.0.0.1:6443'], flag: '--apiserver-host' },
    { name: 'API server with credentials', argv: ['--apiserver-host=https://u:p@10.0.0.1'], flag: '--apiserver-host' },
    { name: 'health path relative', argv: ['--health-check-path=live'], flag: '--health-check-path' },
    { name: 'health path with a query', argv: ['--health-check-path=/live?x=1'], flag: '--health-check-path' },
    { name: 'health path taking /metrics', argv: ['--health-check-path=/metrics'], flag: '--health-check-path' },
  ];
  for (const row of badRows) {
    void it(`rejects ${row.name} with exit 2 and one line naming ${row.flag}`, () => {
      const exit = exitOf(row.argv);
      assert.equal(exit.kind, 'usage');
      assert.equal(exit.exitCode, 2);
      assert.match(exit.output, /^error: [^\n]+\n$/, 'exactly one line');
      assert.ok(exit.output.includes(row.flag), `"${exit.output.trim()}" names ${row.flag}`);
    });
  }

  void it('rejects a positional argument', () => {
    assert.equal(exitOf(['serve']).exitCode, 2);
  });

  void it('--version prints the package version and exits 0', () => {
    const exit = exitOf(['--version']);
    assert.deepEqual([exit.kind, exit.exitCode, exit.output], ['version', 0, `${packageJson.version}\n`]);
  });
});

void describe('--help', () => {
  const expectedLines: [flag: string, defaultText: string][] = [
    ['--kubeconfig <path>', '""'], ['--ingress-class <name>', '"resty"'],
    ['--controller-class <class>', '"resty-ingress.dev/controller"'],
    ['--watch-ingress-without-class [bool]', 'false'], ['--ingress-class-by-name [bool]', 'false'],
    ['--watch-namespace <namespace>', '""'], ['--configmap <namespace/name>', '""'],
    ['--default-backend-service <namespace/name>', '""'],
    ['--annotations-prefix <prefix>', '"nginx.ingress.kubernetes.io"'],
    ['--http-port <port>', '80'], ['--https-port <port>', '443'], ['--status-port <port>', '10246'],
    ['--healthz-port <port>', '10254'], ['--bind-address <ip>', '"0.0.0.0"'],
    ['--nginx-prefix <dir>', '"/tmp/resty-ingress"'], ['--worker-processes <n>', '"auto"'],
    ['--sync-rate-limit <per-second>', '50'], ['--log-level <level>', '"info"'],
    ['--publish-service <namespace/name>', '""'], ['--election-id <name>', '"ingress-controller-leader"'],
    ['--update-status [bool]', 'true'], ['--publish-status-address <addresses>', '""'],
    ['--update-status-on-shutdown [bool]', 'true'], ['--election-ttl <duration>', '"30s"'],
    ['--disable-leader-election [bool]', 'false'], ['--disable-sync-events [bool]', 'false'],
    ['--validating-webhook <[ip]:port>', '""'], ['--enable-metrics [bool]', 'true'],
    ['--validating-webhook-secret <namespace/name>', '""'], ['--validating-webhook-configuration <name>', '""'],
    ['--validating-webhook-service <namespace/name>', '""'], ['--validating-webhook-certificate-validity <duration>', '"8760h"'],
  ];
  const exit = exitOf(['--help']);
  const text = exit.output.replace(/\s+/g, ' ');

  void it('exits 0 with the same text helpText() gives', () => {
    assert.deepEqual([exit.kind, exit.exitCode], ['help', 0]);
    assert.equal(exit.output, helpText());
  });
  for (const [flag, defaultText] of expectedLines) {
    void it(`lists ${flag} with its default ${defaultText}`, () => {
      const start = text.indexOf(`${flag} `);
      assert.ok(start >= 0, `${flag} is listed`);
      const defaultAt = text.indexOf('(default: ', start);
      const entry = text.slice(start, text.indexOf(')', defaultAt) + 1);
      assert.ok(entry.endsWith(`(default: ${defaultText})`), `entry "${entry}"`);
      const others = expectedLines.filter(([other]) => other !== flag && entry.includes(other));
      assert.deepEqual(others, [], `the default read belongs to ${flag}`);
    });
  }
  void it('lists --version and --help', () => {
    assert.ok(text.includes('--version') && text.includes('-h, --help'));
  });
});

void describe('printCommandLineExit', () => {
  const rows: { name: string; exit: CommandLineExit; stream: 'stdout' | 'stderr'; code: number }[] = [
    { name: 'usage errors go to stderr with exit 2', exit: CommandLineExit.usage('bad\nflag'), stream: 'stderr', code: 2 },
    { name: 'help goes to stdout with exit 0', exit: new CommandLineExit('help', 'Usage: x'), stream: 'stdout', code: 0 },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const written = { stdout: '', stderr: '' };
      const code = printCommandLineExit(row.exit, {
        stdout: { write: (text: string) => (written.stdout += text) },
        stderr: { write: (text: string) => (written.stderr += text) },
      });
      assert.equal(code, row.code);
      assert.equal(written[row.stream], row.exit.output);
      assert.equal(written[row.stream === 'stdout' ? 'stderr' : 'stdout'], '');
      assert.match(row.exit.output, /\n$/);
    });
  }
  void it('usage() forces one line and the error: prefix', () => {
    assert.equal(CommandLineExit.usage('bad\n  flag').output, 'error: bad flag\n');
  });
});
