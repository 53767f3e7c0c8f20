-- The request path. balance() picks a peer with the backend's algorithm;
-- log() feeds response times to EWMA. There is no rewrite phase (a Lua
-- rewrite phase costs every request ~0.6 µs to catch what is rare): when a
-- backend is unknown or has no endpoints, balance() picks the "unavailable"
-- fallback peer, NGINX's own server on a unix socket that answers 503
-- (http.njk). balance_https() first sends a plain-HTTP request whose host
-- has a certificate to the "https_redirect" fallback, which redirects it to
-- the same host and URI over HTTPS (ssl-redirect, see https_redirect.lua).
-- Fallbacks are peers, not error pages, so that no server needs a location
-- of its own for them: each location {} costs every nginx -t and reload.
-- One case cannot use the redirect fallback: a location with rewrite-target
-- sends its rewritten URI upstream, so balance_https_rewrite() ends the try
-- with an error instead and the location's `error_page 500` hands the
-- request to unbalanced.lua, which still has the client's URI. Backends
-- live in a per-worker table kept in step with the shared dict by worker.lua
-- through sync()/remove(). Hot paths make no closures, no pcall and no
-- strings on a first try.
local ngx = ngx
local ngx_balancer = require("ngx.balancer")
local cjson = require("cjson.safe")
local round_robin = require("resty_ingress.round_robin")
local ewma = require("resty_ingress.ewma")
local https_redirect = require("resty_ingress.https_redirect")

local var = ngx.var
local ngx_exit = ngx.exit
local ngx_log = ngx.log
local ERR = ngx.ERR
local NGX_ERROR = ngx.ERROR
local set_current_peer = ngx_balancer.set_current_peer
local set_upstream_tls = ngx_balancer.set_upstream_tls
local set_more_tries = ngx_balancer.set_more_tries
local get_last_failure = ngx_balancer.get_last_failure
local str_find = string.find
local str_match = string.match
local str_gsub = string.gsub
local byte = string.byte
local tonumber = tonumber
local math_min = math.min
local tostring = tostring
local type = type
local ipairs = ipairs
local redirects = https_redirect.redirects

-- At most this many extra tries on proxy_next_upstream (ingress-nginx: 3 tries).
local MAX_RETRIES = 2
-- Server names of $resty_route that are not the request's host.
local CATCH_ALL = "_"
local STAR = byte("*")
local PICKERS = { round_robin = round_robin, ewma = ewma }

local _M = {}

-- name -> { raw, algorithm, count, picker }
local backends = {}

-- The fallback peers ("unix:<path>"), set once by init.lua from the rendered
-- nginx.conf; https_redirect is nil without the HTTPS listener.
local unavailable_peer
local https_redirect_peer

-- Called by init.lua (master, before fork). Returns true, or nil and an error.
function _M.set_fallbacks(unavailable, redirect)
    if type(unavailable) ~= "string" then
        return nil, "the unavailable fallback peer is missing"
    end
    if redirect ~= nil and type(redirect) ~= "string" then
        return nil, "the https_redirect fallback peer must be a string"
    end
    unavailable_peer, https_redirect_peer = unavailable, redirect
    return true
end

-- Sends this try to a fallback server. It speaks plain HTTP, also for
-- locations that proxy to https:// backends.
local function fallback(peer)
    set_upstream_tls(false)
    local ok, err = set_current_peer(peer)
    if not ok then
        ngx_log(ERR, "set_current_peer ", peer, ": ", err)
        return ngx_exit(NGX_ERROR)
    end
end

-- Replaces a backend's picker only when its JSON changed: a no-op push keeps
-- round-robin position and EWMA scores.
function _M.sync(name, raw)
    local current = backends[name]
    if current and current.raw == raw then
        return true
    end
    local decoded, err = cjson.decode(raw)
    if not decoded then
        return nil, "backend " .. name .. ": " .. tostring(err)
    end
    local endpoints = {}
    for i, endpoint in ipairs(decoded.endpoints) do
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
    local picker_module = PICKERS[decoded.loadBalance] or round_robin
    backends[name] = {
        raw = raw,
        algorithm = decoded.loadBalance,
        count = #endpoints,
        picker = picker_module.new(endpoints),
    }
    return true
end

function _M.remove(name)
    backends[name] = nil
end

function _M.get(name)
    return backends[name]
end

-- On a retry, the peers tried so far are in $upstream_addr, separated by ", "
-- or " : " ("a:1, b:2 : "). Spaces around every entry make a plain search exact.
local function pick_retry(backend)
    local tried = " " .. str_gsub(var.upstream_addr or "", ",", " ") .. " "
    local picker = backend.picker
    local last = str_match(tried, ".*%s(%S+:%d+)%s")
    if last then
        picker:failed(last)
    end
    for _ = 1, backend.count do
        local peer = picker:find()
        if not str_find(tried, peer.needle, 1, true) then
            return peer
        end
    end
    -- EWMA keeps choosing the best score; walk the list for one not tried yet.
    local endpoints = picker.endpoints
    for i = 1, #endpoints do
        if not str_find(tried, endpoints[i].needle, 1, true) then
            return endpoints[i]
        end
    end
    return picker:find()
end

-- $resty_route ("<backend> <server name> <labels...>", location.njk) -> { backend, host }.
-- host: the server name, which is the request's $host unless the server is the
-- catch-all "_" (NGINX's default server: any host) or a wildcard; then nil and
-- the redirect check reads $host. The values are the rendered locations'
-- literals, so the table stays as small as nginx.conf.
local routes = {}
-- The route of a value that is not one (no $resty_route): no backend, so the unavailable fallback.
local NO_ROUTE = {}

local function route_of(value)
    local route = routes[value]
    if route then
        return route
    end
    local name, host = str_match(value or "", "^(%S+) (%S+)")
    if not name then
        return NO_ROUTE
    end
    if host == CATCH_ALL or byte(host, 1) == STAR then
        host = nil
    end
    route = { backend = name, host = host }
    routes[value] = route
    return route
end

-- first_try: no earlier try of this request failed; route: the location's (asked once per call, by the caller).
local function balance_try(first_try, route)
    local backend = backends[route.backend]
    if not backend or backend.count == 0 then
        return fallback(unavailable_peer)
    end
    local peer
    if first_try then
        peer = backend.picker:find()
        if backend.count > 1 then
            set_more_tries(math_min(backend.count - 1, MAX_RETRIES))
        end
    else
        peer = pick_retry(backend)
    end
    local ok, err = set_current_peer(peer.address, peer.port)
    if not ok then
        ngx_log(ERR, "set_current_peer ", peer.key, ": ", err)
    end
end

-- balancer_by_lua of `upstream_balancer`.
function _M.balance()
    return balance_try(get_last_failure() == nil, route_of(var.resty_route))
end

-- For locations with ssl-redirect on: the first try of a plain-HTTP request
-- whose host has a certificate is redirected, by the redirect fallback or,
-- `via_error_page`, by the location's named location (error_page 500).
local function balance_redirecting(via_error_page)
    local first_try = get_last_failure() == nil
    local route = route_of(var.resty_route)
    if first_try and redirects(route.host) then
        if via_error_page then
            return ngx_exit(NGX_ERROR)
        end
        return fallback(https_redirect_peer)
    end
    return balance_try(first_try, route)
end

-- balancer_by_lua of `upstream_balancer_https`.
function _M.balance_https()
    return balance_redirecting(false)
end

-- balancer_by_lua of `upstream_balancer_https_rewrite`: locations with
-- rewrite-target, whose upstream URI is not the client's.
function _M.balance_https_rewrite()
    return balance_redirecting(true)
end

-- log_by_lua of locations whose backend uses EWMA: feed the last try's
-- response time to it. name: the backend, a literal in the rendered handler
-- (saves reading $proxy_upstream_name); without it, the variable is read.
function _M.log(name)
    local backend = backends[name or var.proxy_upstream_name]
    if not backend or backend.algorithm ~= "ewma" then
        return
    end
    local addr = str_match(var.upstream_addr or "", "([^%s,:]+:%d+)$")
                 or str_match(var.upstream_addr or "", "(%[[^%]]+%]:%d+)$")
    local rtt = tonumber(str_match(var.upstream_response_time or "", "([%d%.]+)$"))
    if addr and rtt then
        backend.picker:feedback(addr, rtt)
    end
end

return _M
