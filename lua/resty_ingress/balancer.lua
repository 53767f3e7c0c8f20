-- The request path. balance(), the balancer of the one upstream every
-- proxied location passes to, reads the location's $resty_route once per
-- try and picks a peer with the backend's algorithm; log() feeds response
-- times to EWMA. There is no rewrite phase (a Lua rewrite phase costs every
-- request ~0.6 µs to catch what is rare): when a backend is unknown or has no
-- endpoints, balance() picks the "unavailable" fallback peer, NGINX's own
-- server on a unix socket that answers 503 (http.njk). A route flagged "r"
-- (ssl-redirect) first sends a plain-HTTP request whose host has a
-- certificate to the "https_redirect" fallback, which redirects it to the
-- same host and URI over HTTPS (see https_redirect.lua). Fallbacks are peers,
-- not error pages, so that no server needs a location of its own for them:
-- each location {} costs every nginx -t and reload. One case cannot use the
-- redirect fallback: a location with rewrite-target sends its rewritten URI
-- upstream, so its route is flagged "e" and balance() ends that try with an
-- error instead; the location's `error_page 500` hands the request to
-- unbalanced.lua, which still has the client's URI. A route with a pushed
-- policy (canary.lua) may send a request to its canary backend instead. A
-- backend with session affinity picks by its cookie (sticky.lua).
-- Backends live in a per-worker table (backends.lua) that worker.lua keeps in
-- step with the shared dict, each decoded on its first use after it changed;
-- routes and policies in route.lua. Hot
-- paths make no closures, no pcall and no strings on a first try.
local ngx = ngx
local ngx_balancer = require("ngx.balancer")
local worker_backends = require("resty_ingress.backends")
local sticky = require("resty_ingress.sticky")
local https_redirect = require("resty_ingress.https_redirect")
local canary = require("resty_ingress.canary")
local route = require("resty_ingress.route")

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
local tonumber = tonumber
local type = type
local get_backend = worker_backends.get
-- The hot paths read the decoded table first (one lookup) and only a miss calls load.
local load_backend = worker_backends.load
local redirects = https_redirect.redirects
local chooses_canary = canary.chooses
local route_of = route.of
local has_policy = route.has_policy
local REDIRECT_ERROR = route.REDIRECT_ERROR
local sticky_choice = sticky.choice

local _M = {}

-- name -> { raw, algorithm, count, picker }, as decoded so far (backends.lua).
local backends = worker_backends.decoded

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
    route.set_redirect_peer(redirect)
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

-- Decoding and the per-worker table live in backends.lua (decoded on first use).
_M.sync = worker_backends.sync
_M.remove = worker_backends.remove
_M.get = get_backend

-- On a retry, the peers tried so far are in $upstream_addr, separated by ", "
-- or " : " ("a:1, b:2 : "). Spaces around every entry make a plain search exact.
local function pick_retry(backend, chosen)
    local tried = " " .. str_gsub(var.upstream_addr or "", ",", " ") .. " "
    local picker = backend.picker
    if picker.retry then
        -- Session affinity decides retries itself (stay on the cookie's endpoint or change it).
        return picker:retry(tried, chosen)
    end
    local last = str_match(tried, ".*%s(%S+:%d+)%s")
    if last then
        picker:failed(last)
    end
    -- Consistent hashing walks its ring from the key to an endpoint not tried.
    if picker.find_other then
        return picker:find_other(tried)
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

-- first_try: no earlier try of this request failed; chosen: the route this try takes (route.lua).
local function balance_try(first_try, chosen)
    local backend = backends[chosen.backend] or load_backend(chosen.backend)
    if not backend or backend.count == 0 then
        return fallback(unavailable_peer)
    end
    local peer
    if first_try then
        peer = backend.picker:find(chosen)
        if backend.count > 1 then
            -- Each endpoint at most once; NGINX lowers this to the location's
            -- proxy_next_upstream_tries (tries 1: none), which every location
            -- inherits or sets (proxy-next-upstream-tries, default 3).
            set_more_tries(backend.count - 1)
        end
    else
        peer = pick_retry(backend, chosen)
    end
    local ok, err = set_current_peer(peer.address, peer.port)
    if not ok then
        ngx_log(ERR, "set_current_peer ", peer.key, ": ", err)
    end
end

-- The first try of a route with a policy: the canary's route when the policy
-- chooses it and Lua knows its backend, else the main one. $resty_route then
-- names the canary (its 8th word), which the metrics log reads (the canary
-- label) and every retry's route_of(): retries stay on the canary.
local function pick_route(main)
    local policy = main.policy
    local canary_backend = backends[policy.backend] or load_backend(policy.backend)
    if canary_backend == nil then
        return main
    end
    -- A session (affinity cookie) of either backend stays there; else the canary rules decide.
    local to_canary = sticky_choice(backends[main.backend] or load_backend(main.backend), canary_backend)
    if to_canary == nil then
        to_canary = chooses_canary(policy)
    end
    if not to_canary then
        return main
    end
    var.resty_route = main.canary_value
    return main.canary_route
end

-- balancer_by_lua of `upstream_balancer`, the one upstream of every proxied location.
function _M.balance()
    local first_try = get_last_failure() == nil
    local chosen = route_of(var.resty_route)
    if first_try then
        local redirect = chosen.redirect
        -- ssl-redirect: a plain-HTTP request whose host has a certificate.
        if redirect ~= nil and redirects(chosen.host) then
            if redirect == REDIRECT_ERROR then
                return ngx_exit(NGX_ERROR)
            end
            return fallback(https_redirect_peer)
        end
        if chosen.policy ~= nil then
            chosen = pick_route(chosen)
        end
    end
    return balance_try(first_try, chosen)
end

-- log_by_lua of locations whose backend uses EWMA: feed the last try's
-- response time to it. name: the backend, a literal in the rendered handler
-- (saves reading $proxy_upstream_name); without it, the variable is read.
function _M.log(name)
    name = name or var.proxy_upstream_name
    if has_policy(name) then
        -- The request may have gone to the canary: $resty_route says which.
        name = route_of(var.resty_route).backend
    end
    local backend = backends[name] or load_backend(name)
    if not backend or backend.algorithm ~= "ewma" then
        return
    end
    local addr = var.upstream_addr or ""
    local times = var.upstream_response_time or ""
    -- One try (the usual case) needs no pattern: patterns are not compiled by
    -- LuaJIT (the trace stitches out to them). With retries, the last one.
    local rtt = tonumber(times)
    if rtt == nil or str_find(addr, " ", 1, true) then
        addr = str_match(addr, "([^%s,:]+:%d+)$") or str_match(addr, "(%[[^%]]+%]:%d+)$")
        rtt = tonumber(str_match(times, "([%d%.]+)$"))
    end
    if addr and rtt then
        backend.picker:feedback(addr, rtt)
    end
end

return _M
