-- The one log-phase entry point of every proxied location: feeds the
-- response time to the balancer (EWMA) and the request to the metrics
-- monitor. Keeping both behind one call keeps the template's phase handler
-- a single line.
local balancer = require("resty_ingress.balancer")
local monitor = require("resty_ingress.monitor")

local balancer_log = balancer.log
local monitor_record = monitor.record

local _M = {}

function _M.log()
    balancer_log()
    monitor_record()
end

return _M
