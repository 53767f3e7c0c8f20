-- wrk script: a JSON summary on one line at the end, prefixed BENCH_JSON,
-- for bench/lib/wrk.ts. It defines no request(): wrk then keeps its static
-- request and spends no Lua per request.
local PERCENTILES = { 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100 }

function done(summary, latency, _)
  local points = {}
  for i = 1, #PERCENTILES do
    local p = PERCENTILES[i]
    points[i] = string.format('{"percentile":%s,"us":%d}', p, latency:percentile(p))
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
      .. '"meanUs":%f,"maxUs":%d,"latency":[%s]}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, table.concat(points, ",")))
end
