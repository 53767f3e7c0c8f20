-- The one log-phase entry point of every proxied location: feeds the
-- response time to the balancer (EWMA) and the request to the metrics
-- monitor. Keeping both behind one call keeps the template's phase handler
-- a single line.
--
-- entry_points() is what init.lua publishes as the global `resty_ingress`:
-- the rendered handlers call `resty_ingress.log("<backend>", "<labels>")`,
-- a global lookup and a call LuaJIT compiles into the request's trace,
-- where `require("...")` in every handler is a C call it cannot compile
-- (measured: ~0.7 µs per request over three phases). The backend name and
-- the label set are literals of the location, so no variable is read for them.
local balancer = require("resty_ingress.balancer")
local monitor = require("resty_ingress.monitor")
local https_redirect = require("resty_ingress.https_redirect")

local balancer_log = balancer.log
local monitor_record = monitor.record

local _M = {}

-- name: Backend.name; labels: the location's metrics label set. Both nil in a
-- handler that names neither: $proxy_upstream_name / $resty_metrics_labels are read then.
function _M.log(name, labels)
    balancer_log(name)
    monitor_record(labels)
end

-- The request-path functions the rendered nginx.conf calls through the global `resty_ingress`.
function _M.entry_points()
    return {
        rewrite = balancer.rewrite,
        -- ssl-redirect locations: see https_redirect.lua.
        rewrite_https = https_redirect.rewrite_https,
        not_found_https = https_redirect.not_found_https,
        balance = balancer.balance,
        log = _M.log,
    }
end

return _M
