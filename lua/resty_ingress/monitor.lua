-- Per-request metrics. record() runs in the log phase of every proxied
-- location and adds the request to a per-worker aggregate keyed by the
-- location's static label set ($resty_metrics_labels, rendered as
-- "<host> <namespace> <ingress> <service> <path>"), then method, then status:
-- three table lookups and a few additions, no string building per request.
-- Every FLUSH_INTERVAL each worker encodes its aggregate once and appends it
-- to a list in the resty_monitor shared dict; the controller drains the list
-- with GET /configuration/metrics (drain()). The list is capped: when the
-- controller stops draining, the oldest batches are dropped and counted.
local ngx = ngx
local cjson = require("cjson.safe")

local var = ngx.var
local tonumber = tonumber
local tostring = tostring
local str_match = string.match
local concat = table.concat
local ngx_log = ngx.log
local ERR = ngx.ERR

local FLUSH_INTERVAL = 1 -- seconds
local MAX_BATCHES = 256 -- per drain list; ~4 minutes of 1 s batches per worker pair
local DROPPED_KEY = "dropped"
local LIST_KEY = "batches"

-- Same bounds as controller/src/metrics/monitor-payload.ts (sent with every drain and checked there).
local DURATION = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 }
local SIZE = { 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576 }
local BOUNDS = { DURATION, DURATION, SIZE, SIZE }

-- Entry layout: for each histogram h, [count, sum, bucket_1 .. bucket_n, overflow].
local OFFSETS = {}
local ENTRY_LENGTH = 0
for h = 1, #BOUNDS do
    OFFSETS[h] = ENTRY_LENGTH
    ENTRY_LENGTH = ENTRY_LENGTH + 3 + #BOUNDS[h]
end

-- Methods outside this list become OTHER: a client must not mint label values.
local METHODS = {
    GET = "GET", HEAD = "HEAD", POST = "POST", PUT = "PUT", DELETE = "DELETE",
    PATCH = "PATCH", OPTIONS = "OPTIONS", CONNECT = "CONNECT", TRACE = "TRACE",
}

local _M = {}

local aggregate = {}
local pending = false
local active = false -- set by init_worker when the shared dict exists

local function new_entry()
    local entry = {}
    for i = 1, ENTRY_LENGTH do
        entry[i] = 0
    end
    return entry
end

local function observe(entry, h, value)
    if not value then
        return
    end
    local base = OFFSETS[h]
    entry[base + 1] = entry[base + 1] + 1
    entry[base + 2] = entry[base + 2] + value
    local bounds = BOUNDS[h]
    local n = #bounds
    local slot = n + 1
    for i = 1, n do
        if value <= bounds[i] then
            slot = i
            break
        end
    end
    entry[base + 2 + slot] = entry[base + 2 + slot] + 1
end

-- $upstream_response_time lists every try ("0.010, 0.004"); the last one answered.
local function upstream_time(text)
    if not text then
        return nil
    end
    return tonumber(text) or tonumber(str_match(text, "([%d%.]+)%s*$"))
end

function _M.record()
    if not active then
        return
    end
    local labels = var.resty_metrics_labels
    if not labels or labels == "" then
        return
    end
    local by_method = aggregate[labels]
    if not by_method then
        by_method = {}
        aggregate[labels] = by_method
    end
    local method = METHODS[var.request_method] or "OTHER"
    local by_status = by_method[method]
    if not by_status then
        by_status = {}
        by_method[method] = by_status
    end
    local status = var.status
    local entry = by_status[status]
    if not entry then
        entry = new_entry()
        by_status[status] = entry
    end
    observe(entry, 1, tonumber(var.request_time))
    observe(entry, 2, upstream_time(var.upstream_response_time))
    observe(entry, 3, tonumber(var.request_length))
    observe(entry, 4, tonumber(var.bytes_sent))
    pending = true
end

local function dict()
    return ngx.shared.resty_monitor
end

-- Moves this worker's aggregate into the shared list.
function _M.flush()
    if not pending then
        return true
    end
    local batch, err = cjson.encode(aggregate)
    aggregate = {}
    pending = false
    if not batch then
        return nil, "encoding the metrics batch: " .. tostring(err)
    end
    local shared = dict()
    if (shared:llen(LIST_KEY) or 0) >= MAX_BATCHES then
        shared:lpop(LIST_KEY)
        shared:incr(DROPPED_KEY, 1, 0)
    end
    local ok, push_err = shared:rpush(LIST_KEY, batch)
    if not ok then
        shared:incr(DROPPED_KEY, 1, 0)
        return nil, "storing the metrics batch: " .. tostring(push_err)
    end
    return true
end

-- Takes every stored batch: the body of GET /configuration/metrics.
function _M.drain()
    local shared = dict()
    local batches = {}
    for i = 1, MAX_BATCHES * 2 do
        local batch = shared:lpop(LIST_KEY)
        if not batch then
            break
        end
        batches[i] = batch
    end
    local dropped = shared:get(DROPPED_KEY) or 0
    if dropped > 0 then
        shared:incr(DROPPED_KEY, -dropped, 0)
    end
    return '{"buckets":' .. cjson.encode(BOUNDS) .. ',"dropped":' .. dropped
           .. ',"batches":[' .. concat(batches, ",") .. "]}"
end

function _M.enabled()
    return dict() ~= nil
end

-- A worker that exits (reload, quit) flushes what it holds: premature is true then.
local function tick()
    local ok, err = _M.flush()
    if not ok then
        ngx_log(ERR, err)
    end
end

function _M.init_worker()
    if not _M.enabled() then
        return -- no lua_shared_dict resty_monitor: per-request metrics are off
    end
    active = true
    local ok, err = ngx.timer.every(FLUSH_INTERVAL, tick)
    if not ok then
        ngx_log(ERR, "starting the metrics flush: ", err)
    end
end

return _M
