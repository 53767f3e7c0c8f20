// The dashboard test's tools, without a cluster: the PromQL parser reads every
// stored dashboard query, and the check finds what a panel would miss
// (a metric, a label, a grown counter) in hand-made series.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { allVariables, checkQuery, concreteVariables, labelValues, type DashboardQueries } from './dashboard-check.ts';
import { parseLabelValues, parsePromql, selectorsOf, walk } from './promql.ts';
import { parseExposition, scraped, substitute } from './series.ts';

const data = JSON.parse(readFileSync(new URL('./ingress-nginx-queries.json', import.meta.url), 'utf8')) as { dashboards: DashboardQueries[] };

/** name{label op value,...}[range] of each selector, and `agg by (labels)` of each grouping. */
function shape(expr: string): { selectors: string[]; groupings: string[]; calls: string[] } {
  const tree = parsePromql(expr);
  const nodes = [...walk(tree)];
  return {
    selectors: selectorsOf(tree).map((s) => `${s.name}{${s.matchers.map((m) => `${m.label}${m.op}${m.value}`).join(',')}}${s.range === null ? '' : `[${s.range}]`}`),
    groupings: nodes.flatMap((n) => (n.kind === 'aggregate' && n.grouping ? [`${n.op} ${n.grouping.mode} (${n.grouping.labels.join(',')})`] : [])),
    calls: nodes.flatMap((n) => (n.kind === 'call' ? [n.fn] : [])),
  };
}

void describe('parsePromql', () => {
  const rows = [
    { name: 'a bare metric', expr: 'up', expected: { selectors: ['up{}'], groupings: [], calls: [] } },
    { name: 'sum by before the arguments, a trailing comma in the matchers', expr: 'sum by (le)(rate(m_bucket{ ingress =~ "$ingress", }[5m]))',
      expected: { selectors: ['m_bucket{ingress=~$ingress}[5m]'], groupings: ['sum by (le)'], calls: ['rate'] } },
    { name: 'by after the arguments, histogram_quantile', expr: 'histogram_quantile(0.5, sum(rate(m_bucket{a="x"}[2m])) by (le, ingress))',
      expected: { selectors: ['m_bucket{a=x}[2m]'], groupings: ['sum by (le,ingress)'], calls: ['histogram_quantile', 'rate'] } },
    { name: 'binary operators, unary minus, time()', expr: '- sum(a{s!~"[4-5].*"}) / sum(b) * 60 + avg(c) by (host) - time()',
      expected: { selectors: ['a{s!~[4-5].*}', 'b{}', 'c{}'], groupings: ['avg by (host)'], calls: ['time'] } },
    { name: 'comparison in count(), round with a precision', expr: 'round(count(x{p=~"$c"} == 0), 0.001)', expected: { selectors: ['x{p=~$c}'], groupings: [], calls: ['round'] } },
    { name: 'on/group_left matching', expr: 'a * on (pod) group_left (node) b', expected: { selectors: ['a{}', 'b{}'], groupings: [], calls: [] } },
    { name: 'single quotes and escapes', expr: "a{x='it\\'s',y=\"q\\\"\"}", expected: { selectors: ["a{x=it's,y=q\"}"], groupings: [], calls: [] } },
  ];
  for (const row of rows) void it(row.name, () => assert.deepEqual(shape(row.expr), row.expected));

  const bad = ['sum(', 'a{b="c"', 'a{b}', 'rate(a[5m]', 'a offset 5m', 'a +'];
  for (const expr of bad) void it(`refuses ${JSON.stringify(expr)}`, () => assert.throws(() => parsePromql(expr), SyntaxError));

  void it('label_values() with and without a selector', () => {
    assert.deepEqual(parseLabelValues('label_values(m{a=~"$x"}, ingress)').label, 'ingress');
    assert.equal(parseLabelValues('label_values(m{a=~"$x"}, ingress)').selector?.name, 'm');
    assert.equal(parseLabelValues('label_values(host)').selector, null);
    assert.throws(() => parseLabelValues('query_result(up)'), SyntaxError);
  });

  void it('reads every stored dashboard query (35) and variable', () => {
    const queries = data.dashboards.flatMap((d) => d.queries);
    assert.equal(queries.length, 35);
    for (const { expr } of queries) assert.ok(selectorsOf(parsePromql(expr)).length > 0, expr);
    for (const variable of data.dashboards.flatMap((d) => d.variables)) assert.ok(parseLabelValues(variable.query).label, variable.query);
  });
});

void describe('checking a query against series', () => {
  const exposition = [
    'nginx_ingress_controller_requests{controller_pod="p",namespace="shop",ingress="web",status="200"} 5',
    'nginx_ingress_controller_request_duration_seconds_bucket{controller_pod="p",namespace="shop",ingress="web",le="0.005"} 5',
    'nginx_ingress_controller_ssl_expire_time_seconds{namespace="shop",host="a.test"} 1900000000',
    'nginx_ingress_controller_nginx_process_cpu_seconds_total{controller_pod="p"} 0',
  ].join('\n');
  const series = scraped(parseExposition(exposition), { namespace: 'ingress', pod: 'p' });
  const rows = [
    { name: 'a scraped `namespace` becomes exported_namespace', expr: 'sum(rate(nginx_ingress_controller_requests{exported_namespace="shop",namespace="ingress"}[2m]))', problems: [] },
    { name: 'a missing metric', expr: 'sum(rate(nginx_ingress_controller_nope[2m]))', problems: ['nginx_ingress_controller_nope{} selects no series'] },
    { name: 'a label grouped by but never set', expr: 'sum(rate(nginx_ingress_controller_requests[2m])) by (host)', problems: ['nginx_ingress_controller_requests: no series has label "host" (grouped by it)'] },
    { name: 'a counter that never grew', expr: 'avg(rate(nginx_ingress_controller_nginx_process_cpu_seconds_total[2m]))', problems: ['nginx_ingress_controller_nginx_process_cpu_seconds_total: rate() of series that never grew'] },
    { name: 'a variable for a label the metric lacks matches only as All', expr: 'avg(nginx_ingress_controller_ssl_expire_time_seconds{ingress=~"$ingress"}) by (host)', problems: [] },
    { name: 'the same with a concrete value selects nothing', expr: 'avg(nginx_ingress_controller_ssl_expire_time_seconds{ingress=~"web"}) by (host)',
      problems: ['nginx_ingress_controller_ssl_expire_time_seconds{ingress=~"web"} selects no series'] },
  ];
  for (const row of rows) void it(row.name, () => assert.deepEqual(checkQuery(row.expr, series, { ingress: '.*' }), row.problems));

  void it('variables: All is the allValue; concrete ones are resolved in order, escaped for =~', () => {
    const dashboard: DashboardQueries = {
      file: 'x.json',
      variables: [
        { name: 'pod', query: 'label_values(nginx_ingress_controller_requests, controller_pod)', allValue: '.*' },
        { name: 'ingress', query: 'label_values(nginx_ingress_controller_requests{controller_pod=~"$pod"}, ingress)', allValue: null },
        { name: 'host', query: 'label_values(nginx_ingress_controller_requests, host)', allValue: '.*' },
      ],
      queries: [],
    };
    assert.deepEqual(allVariables(dashboard), { pod: '.*', ingress: '.*', host: '.*' });
    assert.deepEqual(concreteVariables(dashboard, series), { vars: { pod: 'p', ingress: 'web', host: '' }, empty: ['host'] });
    assert.deepEqual(labelValues('label_values(nginx_ingress_controller_requests{controller_pod=~"q"}, ingress)', series, {}), []);
    assert.equal(substitute('a=~"$controller",b=~"${controller_class}",c=~"[[x]]"', { controller: 'p', controller_class: 'k', x: '.*' }), 'a=~"p",b=~"k",c=~".*"');
  });
});
