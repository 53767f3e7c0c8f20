-- $resty_route, the one variable the balancer reads (once per try), as a
-- route. A proxied location renders it (location.njk) as
--   "<flags> <backend> <server name> <namespace> <ingress> <service> <path>"
-- and the balancer appends " <canary backend>" on the first try of a request
-- it sends to the canary. of(value) ->
--   backend   the backend this try goes to: the 8th word when there is one
--             (the canary: every retry stays there), else the 2nd
--   host      the server name, which is the request's $host unless the server
--             is the catch-all "_" (NGINX's default server: any host), a
--             wildcard, or has aliases (flag "h"); then nil and the redirect
--             check reads $host
--   redirect  nil, or how the first try of a plain-HTTP request to a host
--             with a certificate ends (flags, a word of letters, "-" = none:
--             "r" = REDIRECT_PEER, the redirect fallback peer; "e" =
--             REDIRECT_ERROR, an error that unbalanced.lua answers, for
--             locations with rewrite-target); always nil without the HTTPS
--             listener (no redirect peer)
--   policy    the canary policy pushed for this exact value (canary.lua), or nil
--   key       the value itself (session affinity reads the location's Ingress
--             and path from it, sticky.lua)
--   canary_value, canary_route  with a policy: the value and route of a
--             request sent to the canary, built once here, never per request
-- Each distinct value is parsed once per worker. The values are the rendered
-- locations' literals (and those with a canary appended), so the memo stays
-- as small as nginx.conf; set_policies() drops it when the policies change.
local str_find = string.find
local str_match = string.match
local byte = string.byte
local pairs = pairs

local CATCH_ALL = "_"
local STAR = byte("*")

local _M = {
    REDIRECT_PEER = "peer",
    REDIRECT_ERROR = "error",
}

local routes = {}
-- The route of a value that is not one (no $resty_route): no backend, so the unavailable fallback.
local NO_ROUTE = {}
-- key ($resty_route of a main location) -> policy, and the main backends that have one.
local policies = {}
local policy_mains = {}
-- Set once by balancer.set_fallbacks (init, before fork).
local redirect_peer = nil

function _M.set_redirect_peer(peer)
    redirect_peer = peer
    routes = {}
end

local function redirect_of(flags)
    if not redirect_peer then
        return nil
    end
    if str_find(flags, "e", 1, true) then
        return _M.REDIRECT_ERROR
    end
    if str_find(flags, "r", 1, true) then
        return _M.REDIRECT_PEER
    end
    return nil
end

function _M.of(value)
    local route = routes[value]
    if route then
        return route
    end
    local flags, name, host = str_match(value or "", "^(%S+) (%S+) ?(%S*)")
    if not name then
        return NO_ROUTE
    end
    -- "h": a server with aliases (server-alias) serves more than its name: read $host.
    if host == "" or host == CATCH_ALL or byte(host, 1) == STAR or str_find(flags, "h", 1, true) then
        host = nil
    end
    local canary = str_match(value, "^%S+ %S+ %S+ %S+ %S+ %S+ %S+ (%S+)$")
    local policy = not canary and policies[value] or nil
    route = { backend = canary or name, host = host, redirect = redirect_of(flags), policy = policy, key = value }
    if policy then
        route.canary_value = value .. " " .. policy.backend
        route.canary_route = { backend = policy.backend, host = host, key = value }
    end
    routes[value] = route
    return route
end

-- Called by worker.lua when the pushed policies change ({ [key] = policy }):
-- the memo is dropped, so every route picks up its new policy (or loses it)
-- on its next request.
function _M.set_policies(next_policies)
    local mains = {}
    for key in pairs(next_policies) do
        local main = str_match(key, "^%S+ (%S+)")
        if main then
            mains[main] = true
        end
    end
    policies, policy_mains, routes = next_policies, mains, {}
end

-- True when `backend` is the main backend of a route with a policy: a
-- request of it may have gone to the canary (balancer.log asks).
function _M.has_policy(backend)
    return policy_mains[backend] == true
end

return _M
