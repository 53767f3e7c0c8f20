-- Per-request metrics. record() runs in the log phase of every proxied
-- location and adds the request to a per-worker aggregate keyed by the
-- location's static label set ($resty_metrics_labels, rendered as
-- "<host> <namespace> <ingress> <service> <path>"), then method, then status:
-- three table lookups and a few additions, no string building per request.
-- Every FLUSH_INTERVAL each worker encodes its aggregate once and appends it
-- to a list in the resty_monitor shared dict; the controller drains the list
-- with GET /configuration/metrics (drain()). The list is capped: when the
-- controller stops draining, the oldest batches are dropped and counted.
--
-- record() runs on every request, written for LuaJIT's trace compiler: no
-- loops (one aborts the trace, and the phase then runs interpreted), bucket
-- searches unrolled or precomputed, ngx.var only for what resty.core has no
-- FFI getter for. Status codes are numbers until flush() makes them JSON keys.
local ngx = ngx
local cjson = require("cjson.safe")

local var = ngx.var
local ngx_now = ngx.now
local req_start_time = ngx.req.start_time
local get_method = ngx.req.get_method
local tonumber = tonumber
local tostring = tostring
local pairs = pairs
local math_floor = math.floor
local str_match = string.match
local concat = table.concat
local ngx_log = ngx.log
local ERR = ngx.ERR

local FLUSH_INTERVAL = 1 -- seconds
local MAX_BATCHES = 256 -- per drain list; ~4 minutes of 1 s batches per worker pair
local DROPPED_KEY = "dropped"
local LIST_KEY = "batches"

-- Same bounds as controller/src/metrics/monitor-payload.ts (sent with every drain and checked there).
-- duration_slot/size_slot below are these lists unrolled: change them together.
local DURATION = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 }
local SIZE = { 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576 }
local BOUNDS = { DURATION, DURATION, SIZE, SIZE }

-- Entry layout: for each histogram h, [count, sum, bucket_1 .. bucket_n, overflow].
local REQUEST_DURATION = 0
local RESPONSE_DURATION = REQUEST_DURATION + 3 + #DURATION
local REQUEST_SIZE = RESPONSE_DURATION + 3 + #DURATION
local RESPONSE_SIZE = REQUEST_SIZE + 3 + #SIZE
local ENTRY_LENGTH = RESPONSE_SIZE + 3 + #SIZE

-- Methods outside this list become OTHER: a client must not mint label values.
local METHODS = {
    GET = "GET", HEAD = "HEAD", POST = "POST", PUT = "PUT", DELETE = "DELETE",
    PATCH = "PATCH", OPTIONS = "OPTIONS", CONNECT = "CONNECT", TRACE = "TRACE",
}

local _M = {}

local aggregate = {}
local pending = false
local active = false -- set by init_worker when the shared dict exists

-- Durations have ms resolution, as does every DURATION bound: a duration's
-- bucket is one table load, DURATION_SLOT[ms + 1] (nil past the last bound).
local DURATION_SLOT = {}
do
    local slot = 1
    for ms = 0, math_floor(DURATION[#DURATION] * 1000 + 0.5) do
        while ms > math_floor(DURATION[slot] * 1000 + 0.5) do
            slot = slot + 1
        end
        DURATION_SLOT[ms + 1] = slot
    end
end
local DURATION_OVERFLOW = #DURATION + 1

-- SIZE unrolled (small sizes first: they are the common ones).
local function size_slot(bytes)
    if bytes <= 64 then return 1 end
    if bytes <= 256 then return 2 end
    if bytes <= 1024 then return 3 end
    if bytes <= 4096 then return 4 end
    if bytes <= 16384 then return 5 end
    if bytes <= 65536 then return 6 end
    if bytes <= 262144 then return 7 end
    if bytes <= 1048576 then return 8 end
    return 9
end
-- size_slot must say what SIZE says: checked once at load, so a change to one shows.
for i = 1, #SIZE do
    if size_slot(SIZE[i]) ~= i or size_slot(SIZE[i] + 1) ~= i + 1 then
        error("monitor.lua: size_slot disagrees with SIZE at " .. SIZE[i])
    end
end

local function observe(entry, base, value, slot)
    entry[base + 1] = entry[base + 1] + 1
    entry[base + 2] = entry[base + 2] + value
    entry[base + 2 + slot] = entry[base + 2 + slot] + 1
end

local function observe_duration(entry, base, seconds)
    local slot = DURATION_SLOT[math_floor(seconds * 1000 + 0.5) + 1] or DURATION_OVERFLOW
    observe(entry, base, seconds, slot)
end

-- $upstream_response_time lists every try ("0.010, 0.004"); the last one answered.
local function upstream_time(text)
    if not text then
        return nil
    end
    return tonumber(text) or tonumber(str_match(text, "([%d%.]+)%s*$"))
end

local function entry_of(labels, method, status)
    local by_method = aggregate[labels]
    if not by_method then
        by_method = {}
        aggregate[labels] = by_method
    end
    local by_status = by_method[method]
    if not by_status then
        by_status = {}
        by_method[method] = by_status
    end
    local entry = by_status[status]
    if not entry then
        entry = {}
        for i = 1, ENTRY_LENGTH do
            entry[i] = 0
        end
        by_status[status] = entry
    end
    return entry
end

-- labels: the location's label set, a literal in the rendered handler (saves
-- reading $resty_metrics_labels); without it, the variable is read.
function _M.record(labels)
    if not active then
        return
    end
    labels = labels or var.resty_metrics_labels
    if not labels or labels == "" then
        return
    end
    local entry = entry_of(labels, METHODS[get_method()] or "OTHER", ngx.status)
    -- $request_time, without formatting and parsing it: whole ms since the request started.
    local ms = math_floor((ngx_now() - req_start_time()) * 1000 + 0.5)
    observe_duration(entry, REQUEST_DURATION, ms > 0 and ms / 1000 or 0)
    local upstream = upstream_time(var.upstream_response_time)
    if upstream then
        observe_duration(entry, RESPONSE_DURATION, upstream)
    end
    local request_length = tonumber(var.request_length)
    if request_length then
        observe(entry, REQUEST_SIZE, request_length, size_slot(request_length))
    end
    local bytes_sent = tonumber(var.bytes_sent)
    if bytes_sent then
        observe(entry, RESPONSE_SIZE, bytes_sent, size_slot(bytes_sent))
    end
    pending = true
end

local function with_status_text(batch)
    for _, by_method in pairs(batch) do
        for method, by_status in pairs(by_method) do
            local by_text = {}
            for status, entry in pairs(by_status) do
                by_text[tostring(status)] = entry
            end
            by_method[method] = by_text
        end
    end
    return batch
end

local function dict()
    return ngx.shared.resty_monitor
end

-- Moves this worker's aggregate into the shared list.
function _M.flush()
    if not pending then
        return true
    end
    local batch, err = cjson.encode(with_status_text(aggregate))
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
