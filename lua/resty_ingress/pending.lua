-- "Serve first, materialize later": a new host whose server {} the next
-- reload renders is served by the catch-all server until then. The catch-all
-- server's server_rewrite_by_lua (server.njk) calls serve(), so only requests
-- NGINX gave to the catch-all pay it: one $host read and one table lookup on
-- a miss, which changes nothing (the catch-all's own locations answer, as
-- before). On a hit the path is matched as NGINX matches the locations the
-- server will have (an exact location first, then the longest plain prefix),
-- $resty_route is set to the route's key, and the request goes to the named
-- location @resty_pending, which only proxies (default settings): the
-- catch-all's locations and their features never apply to it. The balancer
-- then picks the backend from $resty_route as for a rendered location.
--
-- $host is what NGINX picks the server by: lowercased, without a port. The
-- controller never makes a host pending that a rendered server already
-- serves, nor a wildcard or regex host (pending-hosts.ts), and drops it once
-- the reload that renders it is confirmed, so a pending host never shadows a
-- rendered server: a request NGINX matched to a server never comes here.
local ngx = ngx
local var = ngx.var
local ngx_exec = ngx.exec
local ngx_log = ngx.log
local ERR = ngx.ERR
local str_sub = string.sub

local NAMED_LOCATION = "@resty_pending"

local _M = {}

-- host -> { exact = { [path] = route }, prefixes = { {path, route}... longest first } } (pending_api.compile).
local hosts = {}

-- Called by worker.lua when the pushed pending hosts change.
function _M.set_hosts(next_hosts)
    hosts = next_hosts
end

local function match(entry, uri)
    local route = entry.exact[uri]
    if route then
        return route
    end
    local prefixes = entry.prefixes
    for i = 1, #prefixes do
        local prefix = prefixes[i].path
        if str_sub(uri, 1, #prefix) == prefix then
            return prefixes[i].route
        end
    end
    return nil
end

-- The catch-all server's server rewrite phase. Returns on a miss (the request goes on as before).
function _M.serve()
    local entry = hosts[var.host]
    if not entry then
        return
    end
    local route = match(entry, var.uri)
    if not route then
        return
    end
    var.resty_route = route.key
    var.proxy_upstream_name = route.backend
    local ok, err = ngx_exec(NAMED_LOCATION)
    if not ok and err then
        ngx_log(ERR, "pending route of ", var.host, ": ", err)
    end
end

return _M
