// ingress-nginx's per-request metrics flags on the command line: what each
// value becomes in ControllerOptions, and the values refused with exit 2.
// (What the options do to /metrics: metrics/request-metrics.test.ts and
// server/observability.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseOptions, type ControllerOptions } from './options.ts';
import { exitOf } from './testdata/exit-of.ts';

type MetricsFlagOptions = Pick<ControllerOptions, 'metricsPerHost' | 'metricsPerUndefinedHost' | 'timeBuckets' | 'lengthBuckets' | 'sizeBuckets' | 'excludeSocketMetrics'>;

const DEFAULTS: MetricsFlagOptions = {
  metricsPerHost: true, metricsPerUndefinedHost: false, timeBuckets: null, lengthBuckets: null, sizeBuckets: null, excludeSocketMetrics: [],
};

function picked(options: ControllerOptions): MetricsFlagOptions {
  const { metricsPerHost, metricsPerUndefinedHost, timeBuckets, lengthBuckets, sizeBuckets, excludeSocketMetrics } = options;
  return { metricsPerHost, metricsPerUndefinedHost, timeBuckets, lengthBuckets, sizeBuckets, excludeSocketMetrics };
}


void describe('metrics flags', () => {
  const rows: { name: string; argv: string[]; expected: Partial<MetricsFlagOptions> }[] = [
    { name: 'none: ingress-nginx defaults (null buckets = the metrics module\'s defaults)', argv: [], expected: {} },
    { name: '--time-buckets', argv: ['--time-buckets=0.1,0.5,1,5'], expected: { timeBuckets: [0.1, 0.5, 1, 5] } },
    { name: '--length-buckets with spaces and an exponent', argv: ['--length-buckets', '100, 1e3,1E4'], expected: { lengthBuckets: [100, 1000, 10000] } },
    { name: '--size-buckets one bound', argv: ['--size-buckets=1000'], expected: { sizeBuckets: [1000] } },
    { name: 'a repeated bucket flag appends, as pflag slices do', argv: ['--time-buckets=0.1', '--time-buckets=1,2'], expected: { timeBuckets: [0.1, 1, 2] } },
    {
      name: '--exclude-socket-metrics with and without the prefix',
      argv: ['--exclude-socket-metrics=nginx_ingress_controller_connect_duration_seconds,header_duration_seconds'],
      expected: { excludeSocketMetrics: ['nginx_ingress_controller_connect_duration_seconds', 'header_duration_seconds'] },
    },
    { name: '--exclude-socket-metrics repeated appends, empty items skipped', argv: ['--exclude-socket-metrics', 'bytes_sent,', '--exclude-socket-metrics', 'response_size'], expected: { excludeSocketMetrics: ['bytes_sent', 'response_size'] } },
    { name: '--exclude-socket-metrics empty: nothing excluded', argv: ['--exclude-socket-metrics='], expected: { excludeSocketMetrics: [] } },
    { name: '--metrics-per-undefined-host', argv: ['--metrics-per-undefined-host'], expected: { metricsPerUndefinedHost: true } },
    { name: '--metrics-per-undefined-host=false without the host label', argv: ['--metrics-per-undefined-host=false', '--metrics-per-host=false'], expected: { metricsPerHost: false } },
  ];
  for (const row of rows) {
    void it(`takes ${row.name}`, () => {
      assert.deepEqual(picked(parseOptions(row.argv)), { ...DEFAULTS, ...row.expected });
    });
  }

  const bad: { name: string; argv: string[]; says: RegExp }[] = [
    { name: 'bounds out of order', argv: ['--time-buckets=0.5,0.1'], says: /--time-buckets.*increasing.*0\.1 does not exceed 0\.5/ },
    { name: 'a repeated bucket flag going back', argv: ['--time-buckets=1', '--time-buckets=0.5'], says: /--time-buckets.*0\.5 does not exceed 1/ },
    { name: 'equal bounds', argv: ['--length-buckets=10,10'], says: /--length-buckets.*increasing/ },
    { name: 'zero', argv: ['--size-buckets=0,10'], says: /--size-buckets.*greater than 0.*"0"/ },
    { name: 'negative', argv: ['--time-buckets=-1,1'], says: /--time-buckets.*"-1"/ },
    { name: 'not a number', argv: ['--time-buckets=fast'], says: /--time-buckets.*"fast"/ },
    { name: 'Inf (Go would take it)', argv: ['--time-buckets=1,+Inf'], says: /--time-buckets.*"\+Inf"/ },
    { name: 'hex (Go would take it)', argv: ['--length-buckets=0x10'], says: /--length-buckets.*"0x10"/ },
    { name: 'an empty list', argv: ['--size-buckets='], says: /--size-buckets.*""/ },
    { name: 'an empty item', argv: ['--time-buckets=0.1,,1'], says: /--time-buckets.*""/ },
    { name: 'the Go slice syntax', argv: ['--time-buckets=[0.1,1]'], says: /--time-buckets.*"\[0\.1"/ },
    { name: 'a metric name with a space', argv: ['--exclude-socket-metrics=request size'], says: /--exclude-socket-metrics.*"request size"/ },
    { name: 'a metric name with a label selector', argv: ['--exclude-socket-metrics=requests{status="200"}'], says: /--exclude-socket-metrics.*metric names/ },
    { name: 'undefined hosts without the host label', argv: ['--metrics-per-undefined-host', '--metrics-per-host=false'], says: /--metrics-per-undefined-host=true must be passed with --metrics-per-host=true/ },
  ];
  for (const row of bad) {
    void it(`refuses ${row.name} with exit 2 and one line saying why`, () => {
      const exit = exitOf(row.argv);
      assert.equal(exit.exitCode, 2);
      assert.match(exit.output, /^error: [^\n]+\n$/, 'exactly one line');
      assert.match(exit.output, row.says);
    });
  }
});
