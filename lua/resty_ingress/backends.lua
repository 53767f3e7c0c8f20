-- This worker's backends, decoded from the store (store.lua) on first use.
-- worker.lua tells it which backends a new store version changed (mark());
-- the decode waits for the first request that needs the backend. A full set
-- of 10,000 backends decoded at once cost every worker ~0.25–0.5 s on the
-- version change, a whole timer tick in which it served nothing, before it
-- could report the version; marked, the version is reported within one poll.
-- The stored text is what POST/PATCH validated and wrote in canonical form
-- (validate.lua), so a decode that fails means a store not written by the
-- configuration API: it is logged, the previous endpoints stay in use and
-- the name is handed to worker.lua (take_failures()), which stops reporting
-- that version as held.
-- decoded is the table balancer.lua reads on every request: a backend in it
-- costs one lookup, as before; only a name not in it looks at `stale`.
local ngx = ngx
local cjson = require("cjson.safe")
local store = require("resty_ingress.store")
local round_robin = require("resty_ingress.round_robin")
local ewma = require("resty_ingress.ewma")
local sticky = require("resty_ingress.sticky")
local chash = require("resty_ingress.chash")

local ngx_log = ngx.log
local ERR = ngx.ERR
local str_find = string.find
local tostring = tostring
local type = type
local ipairs = ipairs
local next = next

local PICKERS = { round_robin = round_robin, ewma = ewma }

local _M = {}

-- name -> { raw, algorithm, count, picker }
local decoded = {}
_M.decoded = decoded
-- name -> what it decoded before it was marked (false: nothing): the stored
-- text moved and is decoded on first use.
local stale = {}
-- name -> store version that wrote the text that did not decode, for worker.lua.
local failures = {}

-- The picker of a backend, chosen as ingress-nginx chooses its balancer:
-- session affinity (sticky.lua) first, then upstream-hash-by (chash.lua),
-- then the load-balance algorithm.
local function new_picker(backend, endpoints)
    if backend.affinity then
        return sticky.new(endpoints, backend, cjson.null)
    end
    if type(backend.hash) == "table" and #endpoints > 0 then
        return chash.new(endpoints, backend.hash)
    end
    return (PICKERS[backend.loadBalance] or round_robin).new(endpoints)
end

-- A backend's entry from its canonical text, or nil and an error.
local function build(name, raw)
    local backend, err = cjson.decode(raw)
    if type(backend) ~= "table" or type(backend.endpoints) ~= "table" then
        return nil, "backend " .. name .. ": " .. tostring(err or "not a backend")
    end
    local endpoints = {}
    for i, endpoint in ipairs(backend.endpoints) do
        -- set_current_peer parses its address as NGINX parses a URL: an IPv6
        -- address needs its brackets, or its first ":" starts the port.
        local address = endpoint.address
        if str_find(address, ":", 1, true) then
            address = "[" .. address .. "]"
        end
        local key = address .. ":" .. endpoint.port
        endpoints[i] = { address = address, port = endpoint.port, key = key,
                         needle = " " .. key .. " " }
    end
    local picker, picker_err = new_picker(backend, endpoints)
    if not picker then
        return nil, "backend " .. name .. ": " .. tostring(picker_err)
    end
    return { raw = raw, algorithm = backend.loadBalance, count = #endpoints, picker = picker }
end

-- Decodes `raw` now, unless it is the text already held: a no-op push keeps
-- round-robin position and EWMA scores. Returns true, or nil and an error
-- (the previous entry stays).
function _M.sync(name, raw)
    local current = decoded[name] or stale[name]
    stale[name] = nil
    if current and current.raw == raw then
        decoded[name] = current
        return true
    end
    local entry, err = build(name, raw)
    if not entry then
        decoded[name] = current or nil
        return nil, err
    end
    decoded[name] = entry
    return true
end

-- The stored text of `name` moved: decode it on first use.
function _M.mark(name)
    local current = decoded[name]
    if current then
        decoded[name] = nil
        stale[name] = current
    elseif stale[name] == nil then
        stale[name] = false
    end
end

function _M.remove(name)
    decoded[name] = nil
    stale[name] = nil
end

-- Decodes a marked backend from the store now. Returns its entry, or nil (unknown, or failed).
local function load(name)
    local previous = stale[name]
    if previous == nil then
        return nil
    end
    local raw, stamp = store.backend(name)
    if raw == nil then
        -- Removed by a push this worker has not applied yet: what it had until then.
        stale[name] = nil
        decoded[name] = previous or nil
        return previous or nil
    end
    local ok, err = _M.sync(name, raw)
    if not ok then
        ngx_log(ERR, "applying ", err)
        failures[name] = stamp
    end
    return decoded[name]
end
_M.load = load

-- The backend `name` as this worker routes it, decoded now when marked; nil when unknown.
function _M.get(name)
    return decoded[name] or load(name)
end

-- Backends whose marked text did not decode since the last call: name -> store
-- version that wrote it, or nil for none.
function _M.take_failures()
    if next(failures) == nil then
        return nil
    end
    local taken = failures
    failures = {}
    return taken
end

-- True when `name` waits for its decode (tests and worker.lua's retries).
function _M.is_marked(name)
    return stale[name] ~= nil
end

return _M
