-- Session affinity by cookie (affinity: cookie), the picker of a backend with
-- a pushed `affinity`; balancer.lua prefers it to every other algorithm. The
-- interface of round_robin.lua and ewma.lua, plus retry() and the canary
-- check choice(). As in ingress-nginx v1.15.1 (balancer/sticky*.lua):
-- - the cookie is "<key>|<backend key>"; the backend key is md5(md5(name)..name)
--   and tells a canary which backend a session belongs to;
-- - persistent: the key is md5(<backend name><address>:<port>); a session keeps
--   its endpoint while the endpoint exists, a new endpoint takes new sessions only;
-- - balanced: the key is a random token placed on a consistent-hash ring
--   (sticky_ring.lua): adding endpoints moves some sessions to them;
-- - a request without a usable cookie gets an endpoint and a new cookie, but
--   only through a location of an Ingress with affinity: cookie (the
--   backend's `ingresses`); other locations balance by the cookie and set none;
-- - a retry stays on the cookie's endpoint unless change-on-failure is on;
--   then, or without a cookie, it picks an endpoint not tried yet and sets a
--   new cookie.
-- Returning sessions read one variable and look the key up: no allocation
-- but the key's substring, no hashing in persistent mode.
local ngx = ngx
local sticky_ring = require("resty_ingress.sticky_ring")
local sticky_cookie = require("resty_ingress.sticky_cookie")

local md5 = ngx.md5
local ngx_now = ngx.now
local math_random = math.random
local str_find = string.find
local str_sub = string.sub
local str_format = string.format
local str_match = string.match
local setmetatable = setmetatable

local var = ngx.var
local worker_pid = ngx.worker.pid

-- Attempts to draw a balanced key whose endpoint was not tried (ingress-nginx: 20).
local MAX_DRAWS = 20
local BAR = "|"

local _M = {}
local mt = { __index = _M }

-- endpoints: balancer.lua's ({ address, port, key, needle }); backend: the
-- decoded DynamicBackend (name, affinity); null: cjson's null.
function _M.new(endpoints, backend, null)
    local affinity = backend.affinity
    local name = backend.name
    local self = {
        endpoints = endpoints,
        count = #endpoints,
        sticky = true,
        backend_key = md5(md5(name) .. name),
        cookie_var = "cookie_" .. affinity.cookie,
        persistent = affinity.mode == "persistent",
        change_on_failure = affinity.changeOnFailure == true,
        cookie = sticky_cookie.settings(affinity, null),
        setters = {},
        -- route key -> false, or the Path of the cookie that route sets
        routes = {},
    }
    local ingresses = affinity.ingresses
    for i = 1, #ingresses do
        self.setters[ingresses[i]] = true
    end
    if self.persistent then
        local by_key = {}
        for i = 1, #endpoints do
            local endpoint = endpoints[i]
            -- The address without IPv6 brackets, as ingress-nginx hashes it.
            local address = str_match(endpoint.address, "^%[(.*)%]$") or endpoint.address
            local key = md5(name .. address .. ":" .. endpoint.port)
            endpoint.sticky_key = key
            by_key[key] = endpoint
        end
        self.by_key = by_key
    else
        self.ring = sticky_ring.new(endpoints)
    end
    return setmetatable(self, mt)
end

-- The endpoint part of the request's cookie ("" when there is none).
local function cookie_key(self)
    local raw = var[self.cookie_var]
    if not raw then
        return nil
    end
    local bar = str_find(raw, BAR, 1, true)
    if bar then
        return str_sub(raw, 1, bar - 1)
    end
    return raw
end

-- The endpoint a cookie key names, or nil.
local function lookup(self, key)
    if not key or key == "" then
        return nil
    end
    if self.persistent then
        return self.by_key[key]
    end
    return self.ring:find(key)
end

-- A new endpoint and its key, avoiding the endpoints in `tried` (balancer.lua's
-- " addr:port " string; nil on a first try), or nil when every one was tried.
local function pick_new(self, tried)
    local endpoints = self.endpoints
    if self.persistent then
        local start = math_random(self.count)
        for i = 0, self.count - 1 do
            local endpoint = endpoints[(start + i - 1) % self.count + 1]
            if not tried or not str_find(tried, endpoint.needle, 1, true) then
                return endpoint, endpoint.sticky_key
            end
        end
        return nil
    end
    local pid = worker_pid()
    for i = 1, MAX_DRAWS do
        local key = str_format("%s.%s.%s", ngx_now() + i, pid, math_random(999999))
        local endpoint = self.ring:find(key)
        if not tried or not str_find(tried, endpoint.needle, 1, true) then
            return endpoint, key
        end
    end
    return nil
end

-- The Path of the cookie `route` sets, or false when its Ingress sets none.
local function cookie_path(self, route)
    local key = route and route.key
    if not key then
        return false
    end
    local path = self.routes[key]
    if path == nil then
        local namespace, ingress = str_match(key, "^%S+ %S+ %S+ (%S+) (%S+)")
        path = namespace and self.setters[namespace .. "/" .. ingress] and sticky_cookie.route_path(key) or false
        self.routes[key] = path
    end
    return path
end

local function new_session(self, tried, route)
    local endpoint, key = pick_new(self, tried)
    if endpoint then
        local path = cookie_path(self, route)
        if path then
            sticky_cookie.set(self.cookie, key .. BAR .. self.backend_key, path)
        end
    end
    return endpoint
end

-- First try. route: route.lua's route of this try (its key names the location).
function _M.find(self, route)
    local endpoint = lookup(self, cookie_key(self))
    if endpoint then
        return endpoint
    end
    return new_session(self, nil, route) or self.endpoints[1]
end

-- A retry after a failed try; tried: the peers tried so far (balancer.lua).
function _M.retry(self, tried, route)
    local endpoint = lookup(self, cookie_key(self))
    if endpoint and not self.change_on_failure then
        return endpoint
    end
    return new_session(self, tried, route) or endpoint or self.endpoints[1]
end

-- True when the request's cookie belongs to this backend (its second part is the backend key).
local function affinitized(self)
    local raw = var[self.cookie_var]
    if not raw then
        return false
    end
    local bar = str_find(raw, BAR, 1, true)
    if not bar then
        return false
    end
    local after = str_find(raw, BAR, bar + 1, true)
    return str_sub(raw, bar + 1, after and after - 1 or -1) == self.backend_key
end

-- The canary decision by affinity (ingress-nginx's route_to_alternative_balancer):
-- false = a session of the main backend stays there, true = a session of the
-- canary's backend goes there, nil = no session: the canary rules decide.
-- main, canary: balancer.lua's backend entries (main may be nil).
function _M.choice(main, canary)
    if main and main.picker.sticky and affinitized(main.picker) then
        return false
    end
    if canary.picker.sticky and affinitized(canary.picker) then
        return true
    end
    return nil
end

-- Affinity learns nothing from response times; a failure acts through retry().
function _M.feedback()
end

function _M.failed()
end

return _M
