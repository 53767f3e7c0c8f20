-- Per-worker poll of the shared dict: every POLL_INTERVAL the worker compares
-- the store version with the one it applied and, when it moved, marks the
-- backends that changed (see store.lua for the layout): backends.lua reads
-- and decodes each on its first use, so a version of 10,000 new backends
-- costs a worker a table entry per backend, not 10,000 decodes in one tick
-- (0.25–0.5 s in which it served nothing). It marks the names the change log
-- gives for the versions it missed, or every backend when the log does not
-- cover them (a POST): a backend whose text did not change then keeps its
-- decoded state on first use (backends.lua compares the text).
-- A worker reports a version (GET /configuration/status) once it holds every
-- backend of it: the canonical text POST/PATCH validated (validate.lua),
-- marked for decoding. A text that then does not decode (a store not written
-- by the API) takes the report back to the version before the one that wrote
-- it; such a backend is decoded again at once on each later version, and
-- until it decodes the worker reports the last version it held whole.
-- Route policies share the store version: when their own stamp moved too,
-- the worker rebuilds every policy (after the backends, which they name) and
-- hands them to route.lua, which drops its route memo.
local ngx = ngx
local store = require("resty_ingress.store")
local worker_backends = require("resty_ingress.backends")
local route = require("resty_ingress.route")
local canary = require("resty_ingress.canary")
local routes_api = require("resty_ingress.routes_api")
local pending = require("resty_ingress.pending")
local pending_api = require("resty_ingress.pending_api")
local https_redirect = require("resty_ingress.https_redirect")

local pairs = pairs
local next = next
local ngx_log = ngx.log
local ERR = ngx.ERR

-- Short enough that endpoint changes reach every worker within ~10 ms.
local POLL_INTERVAL = 0.005

local _M = {}

local applied_version = -1
local applied_names_version = -1
-- The last store version this worker held whole, as it reports it.
local complete_version = 0
local applied_routes_version = 0 -- nothing pushed = no policy, as the balancer starts
local applied_pending_version = 0 -- nothing pushed = no pending host
local names = {}
local present = {} -- name -> true for each of `names`: the backends this worker holds
local failed = {} -- name -> true: stored, but this worker could not decode it

local function apply_names(dict)
    names = store.split_names(dict:get("names"))
    local previous = present
    present = {}
    for i = 1, #names do
        present[names[i]] = true
    end
    for name in pairs(previous) do
        if not present[name] then
            worker_backends.remove(name)
        end
    end
    for name in pairs(failed) do
        if not present[name] then
            failed[name] = nil
        end
    end
end

-- Marks one backend for decoding; a name no longer listed (removed) is left to apply_names.
local function apply_backend(name)
    if present[name] then
        worker_backends.mark(name)
    end
end

-- Decodes a backend that failed before, now (the error log says so again when it still fails).
local function retry_backend(name)
    if present[name] then
        worker_backends.mark(name)
        worker_backends.load(name)
    end
end

-- Backends whose text did not decode on first use: this worker no longer
-- holds the versions from the one that wrote that text on. Returns true when there were any.
local function note_failures()
    local lost = worker_backends.take_failures()
    if lost == nil then
        return false
    end
    for name, stamp in pairs(lost) do
        failed[name] = true
        -- No version (flags) on the entry: not written by store.lua, no version is held whole.
        local held = (stamp or 1) - 1
        if held < complete_version then
            complete_version = held
        end
    end
    return true
end

local function report()
    local ok, err = store.set_worker_status(ngx.worker.id() or 0, ngx.worker.pid(), complete_version)
    if not ok then
        ngx_log(ERR, "recording worker status: ", err)
    end
end

-- Rebuilds every policy from the stored text; on a text that does not
-- decode (never stored by routes_api.lua) the previous policies stay.
local function apply_routes(text)
    local by_key, err = routes_api.decode(text or routes_api.EMPTY)
    if not by_key then
        ngx_log(ERR, "applying route policies: ", err)
        return false
    end
    local policies = {}
    for key, policy in pairs(by_key) do
        policies[key] = canary.compile(policy)
    end
    route.set_policies(policies)
    return true
end

-- Brings this worker's backends and route policies up to the store version; returns that version.
function _M.apply()
    local dict = store.dict()
    local version = dict:get("version") or 0
    if version == applied_version then
        if note_failures() then
            report()
        end
        return version
    end
    local names_version = dict:get("names_version") or 0
    if names_version ~= applied_names_version then
        apply_names(dict)
        applied_names_version = names_version
    end
    local changed = store.changed_since(applied_version, version) or names
    -- What failed before is decoded again once per version (not per tick:
    -- the error log says it once), at once: a worker that knows of a backend
    -- it cannot decode does not report a version as held on a guess.
    note_failures()
    local retry = failed
    failed = {}
    for i = 1, #changed do
        apply_backend(changed[i])
    end
    for name in pairs(retry) do
        retry_backend(name)
    end
    note_failures()
    local routes_version = dict:get("routes_version") or 0
    local routes_whole = true
    if routes_version ~= applied_routes_version then
        if apply_routes(dict:get("routes")) then
            applied_routes_version = routes_version
        else
            routes_whole = false
        end
    end
    -- Pending hosts (pending.lua) after the backends their routes name.
    local pending_version = dict:get("pending_version") or 0
    if pending_version ~= applied_pending_version then
        local hosts, err = pending_api.compile(dict:get("pending") or pending_api.EMPTY)
        if hosts then
            pending.set_hosts(hosts)
            applied_pending_version = pending_version
        else
            ngx_log(ERR, "applying pending hosts: ", err)
            routes_whole = false
        end
    end
    applied_version = version
    if next(failed) == nil and routes_whole then
        complete_version = version
    end
    report()
    return version
end

local function tick(premature)
    if premature then
        return
    end
    _M.apply()
    -- The hosts with a certificate (ssl-redirect), on the same poll.
    https_redirect.refresh()
end

function _M.init_worker()
    -- Each worker needs its own random sequence (EWMA's two choices).
    math.randomseed(ngx.now() * 1000 + ngx.worker.pid())
    -- Apply now: a worker started by a reload must route before its first tick.
    _M.apply()
    https_redirect.refresh()
    local ok, err = ngx.timer.every(POLL_INTERVAL, tick)
    if not ok then
        ngx_log(ERR, "starting the backend poll: ", err)
    end
end

return _M
