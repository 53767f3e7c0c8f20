// An ingress-nginx command line against the controller's: every flag category
// of model/features/flag-statuses.ts (supported, different, ignored, refused),
// pflag's forms, bad values and flags nobody has.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { INGRESS_NGINX_FLAGS } from '../model/features/ingress-nginx-flags.ts';
import { parseOptions, type ControllerOptions } from './options.ts';
import { exitOf } from './testdata/exit-of.ts';


const noticesOf = (options: ControllerOptions): string[] => options.flagNotices.map((notice) => `${notice.level} ${notice.flag}=${notice.value}`);

void describe('pflag forms', () => {
  const rows: { name: string; argv: string[]; notices: string[]; expected?: Partial<ControllerOptions> }[] = [
    { name: '--flag=value', argv: ['--sync-period=10m'], notices: ['warn sync-period=10m'] },
    { name: '--flag value takes the next argument', argv: ['--sync-period', '10m', '--election-id', 'x'], notices: ['warn sync-period=10m'], expected: { electionId: 'x' } },
    { name: 'a bare bool is true', argv: ['--profiling'], notices: ['warn profiling=true'] },
    { name: 'a bool set to false', argv: ['--profiling=false'], notices: ['warn profiling=false'] },
    { name: 'a bool never takes the next argument', argv: ['--profiling', '--election-id', 'x'], notices: ['warn profiling=true'], expected: { electionId: 'x' } },
    { name: 'klog -v=2', argv: ['-v=2'], notices: ['info v=2'] },
    { name: 'klog -v 3', argv: ['-v', '3'], notices: ['info v=3'], expected: { logLevel: 'debug' } },
    { name: 'klog -v5', argv: ['-v5'], notices: ['info v=5'], expected: { logLevel: 'trace' } },
    { name: 'klog --v=2', argv: ['--v=2'], notices: ['info v=2'], expected: { logLevel: 'info' } },
    { name: 'klog\'s underscore names', argv: ['--logtostderr=false', '--log_dir', '/var/log'], notices: ['warn logtostderr=false', 'warn log_dir=/var/log'] },
    { name: 'a value that starts with a dash is still the value', argv: ['--maxmind-edition-ids', '-x'], notices: ['warn maxmind-edition-ids=-x'] },
    { name: 'repeated: one notice, the last value', argv: ['--profiling=true', '--v=1', '--profiling=false'], notices: ['info v=1', 'warn profiling=false'] },
    { name: 'ours and theirs mixed, our values unchanged', argv: ['--v=2', '--watch-ingress-without-class=true', '--publish-service=ingress/svc', '--sync-period=0s'],
      notices: ['info v=2', 'warn sync-period=0s'], expected: { watchIngressWithoutClass: true, publishService: 'ingress/svc' } },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const options = parseOptions(row.argv);
      assert.deepEqual(noticesOf(options), row.notices);
      for (const [key, value] of Object.entries(row.expected ?? {})) assert.deepEqual(options[key as keyof ControllerOptions], value, key);
    });
  }
});

void describe('--version as a pflag bool', () => {
  void it('--version=true prints the version', () => assert.equal(exitOf(['--version=true']).kind, 'version'));
  void it('--version=false asks for nothing', () => assert.deepEqual(parseOptions(['--version=false', '--election-id=x']).electionId, 'x'));
  void it('--version=maybe is refused naming it', () => assert.match(exitOf(['--version=maybe']).output, /^error: .*--version/));
});

void describe('different: --v stands for a log level', () => {
  const rows: { name: string; argv: string[]; level: string }[] = [
    { name: 'no --v: info', argv: [], level: 'info' },
    { name: '--v=0: info', argv: ['--v=0'], level: 'info' },
    { name: '--v=2 (the usual): info', argv: ['--v=2'], level: 'info' },
    { name: '--v=3: debug', argv: ['--v=3'], level: 'debug' },
    { name: '--v=4: debug', argv: ['--v=4'], level: 'debug' },
    { name: '--v=10: trace', argv: ['--v=10'], level: 'trace' },
    { name: 'an explicit --log-level wins, after', argv: ['--v=5', '--log-level', 'warn'], level: 'warn' },
    { name: 'an explicit --log-level wins, before', argv: ['--log-level=error', '--v=5'], level: 'error' },
    { name: 'an explicit --log-level info wins', argv: ['--log-level=info', '--v=5'], level: 'info' },
  ];
  for (const row of rows) void it(row.name, () => assert.equal(parseOptions(row.argv).logLevel, row.level));
  void it('says what it became, at info', () => {
    assert.match(parseOptions(['--v=3']).flagNotices[0]?.message ?? '', /--v=3: .*3–4 debug/);
  });
});

void describe('ignored: accepted, one Warning each, nothing else changes', () => {
  const rows: { name: string; arg: string; says: RegExp }[] = [
    { name: 'the Go profiler', arg: '--profiling=true', says: /no Go profiler/ },
    { name: 'klog file logging', arg: '--log_file=/tmp/x.log', says: /klog setting/ },
    { name: 'native histograms', arg: '--bucket-factor=1.1', says: /native histograms are not exported/ },
    { name: 'GeoIP downloads', arg: '--maxmind-license-key=abc', says: /GeoIP2/ },
    { name: 'annotation validation cannot be turned off', arg: '--enable-annotation-validation=false', says: /always validated/ },
    { name: 'deep inspection cannot be turned off', arg: '--deep-inspect=false', says: /validated strictly/ },
    { name: 'ExternalName refusal is already what happens', arg: '--disable-svc-external-name', says: /ExternalName/ },
    { name: 'resync period', arg: '--sync-period=1h30m', says: /relist/ },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const options = parseOptions([row.arg]);
      assert.equal(options.flagNotices.length, 1);
      assert.equal(options.flagNotices[0]?.level, 'warn');
      assert.match(options.flagNotices[0]?.message ?? '', row.says);
      assert.deepEqual({ ...options, flagNotices: [] }, { ...parseOptions([]), flagNotices: [] }, 'no option changed');
    });
  }
});

void describe('refused: exit 2, saying what to do instead', () => {
  const rows: { name: string; argv: string[]; says: RegExp }[] = [
    { name: 'namespace selector', argv: ['--watch-namespace-selector', 'team=a'], says: /--watch-namespace-selector=team=a .*--watch-namespace/ },
    { name: 'namespace selector, bare (takes the next argument, as pflag does)', argv: ['--watch-namespace-selector', '--v=2'], says: /--watch-namespace-selector=--v=2 / },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const exit = exitOf(row.argv);
      assert.deepEqual([exit.kind, exit.exitCode], ['usage', 2]);
      assert.match(exit.output, /^error: ingress-nginx flag [^\n]+ is not supported: [^\n]+\n$/);
      assert.match(exit.output, row.says);
    });
  }
  const defaults: { name: string; argv: string[] }[] = [
    { name: 'no selector', argv: ['--watch-namespace-selector='] },
    { name: 'no selector, given as the next argument', argv: ['--watch-namespace-selector', ''] },
  ];
  for (const row of defaults) {
    void it(`accepted at ingress-nginx's default: ${row.name}`, () => {
      const notices = parseOptions(row.argv).flagNotices;
      assert.equal(notices.length, 1);
      assert.match(notices[0]?.message ?? '', /its default and asks for nothing/);
    });
  }
});

void describe('bad values and unknown flags: exit 2 naming the flag', () => {
  const rows: { name: string; argv: string[]; flag: string }[] = [
    { name: 'a bool that is not one', argv: ['--profiling=yes'], flag: '--profiling' },
    { name: 'an int that is not one', argv: ['--post-shutdown-grace-period=10s'], flag: '--post-shutdown-grace-period' },
    { name: 'klog -v not a number', argv: ['-v=high'], flag: '--v' },
    { name: 'klog -v negative', argv: ['--v=-1'], flag: '--v' },
    { name: 'a Go duration without a unit', argv: ['--sync-period=10'], flag: '--sync-period' },
    { name: 'an IP that is not one', argv: ['--profiler-address=localhost'], flag: '--profiler-address' },
    { name: 'a float list with a word', argv: ['--size-buckets=1,ten'], flag: '--size-buckets' },
    { name: 'a value missing at the end', argv: ['--sync-period'], flag: '--sync-period' },
    { name: 'a flag nobody has', argv: ['--enable-magic=true'], flag: '--enable-magic' },
    { name: 'a misspelt ingress-nginx flag', argv: ['--profilling'], flag: '--profilling' },
    { name: 'single dash on a long name (pflag refuses it too)', argv: ['-profiling'], flag: '-profiling' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const exit = exitOf(row.argv);
      assert.deepEqual([exit.kind, exit.exitCode], ['usage', 2]);
      assert.match(exit.output, /^error: [^\n]+\n$/);
      assert.ok(exit.output.includes(row.flag), `"${exit.output.trim()}" names ${row.flag}`);
    });
  }
});

void describe('every ingress-nginx flag at ingress-nginx\'s default starts the controller', () => {
  for (const flag of INGRESS_NGINX_FLAGS) {
    void it(`--${flag.name}=${flag.default}`, () => {
      assert.doesNotThrow(() => parseOptions([`--${flag.name}=${flag.default}`]));
    });
  }
});
