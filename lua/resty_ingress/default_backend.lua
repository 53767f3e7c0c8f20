-- The default backend of a route (the default-backend annotation) and the
-- custom error pages (custom-http-errors), as ingress-nginx v1.15.1 sends
-- them: the request goes to the default backend's Service with the headers
-- X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name,
-- X-Service-Name, X-Service-Port and X-Request-ID.
--
-- fallback(name): rewrite phase of a location whose Ingress has a
-- default-backend, only there (others pay no Lua phase). When the route's
-- backend has no endpoints (or is unknown: its Service is missing) and the
-- default backend has some, the request goes to the default backend with
-- X-Code 503 and its own URI. Decided per request from the per-worker
-- backends: a Service losing or regaining its endpoints is a push, never a
-- reload. It must run before the proxy module builds the request headers
-- (so not in the balancer), and the balancer must then pick from the default
-- backend: $resty_route is rewritten with its backend word replaced (flags
-- and labels kept: metrics still name the Ingress and Service).
--
-- error_page(code, name, global): rewrite phase of the named location
-- @custom_<name>_<code> an `error_page` sends a status to. $resty_route still
-- holds the failed location's route (a named location keeps variables, not
-- ngx.ctx): its labels give the X-Namespace/-Ingress-Name/-Service-Name/
-- -Service-Port values, and the new route sends the request to `name`
-- (flags "-": no redirect, no canary). As in ingress-nginx, an error backend
-- is used only while it has endpoints: else the global default backend
-- (`global`, --default-backend-service, when it differs from `name`), else
-- NGINX answers 404 (ingress-nginx's built-in default backend).
--
-- Headers are set on the request (its client headers are passed too, as in
-- ingress-nginx): an empty value removes one the client sent. Both run only
-- on those rare paths, so they are written for clarity, not for the JIT.
local ngx = ngx
local balancer = require("resty_ingress.balancer")

local var = ngx.var
local ngx_exit = ngx.exit
local HTTP_NOT_FOUND = ngx.HTTP_NOT_FOUND
local set_header = ngx.req.set_header
local str_match = string.match
local str_sub = string.sub
local tostring = tostring

local _M = {}

-- "<flags> <backend> <host> <namespace> <ingress> <service> <path>[ <canary>]"
local ROUTE = "^(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+)"

local function label(value)
    if value == nil or value == "-" then
        return nil
    end
    return value
end

-- The Service port of a backend named "<namespace>-<service>-<port>".
local function port_of(backend, namespace, service)
    if not namespace or not service then
        return nil
    end
    local prefix = namespace .. "-" .. service .. "-"
    if str_sub(backend, 1, #prefix) ~= prefix or #backend == #prefix then
        return nil
    end
    return str_sub(backend, #prefix + 1)
end

local function has_endpoints(name)
    local backend = balancer.get(name)
    return backend ~= nil and backend.count > 0
end

-- Sets ingress-nginx's headers from the failed route's fields (nil when
-- the request had no route: a location that answered 404 itself).
local function set_error_headers(code, backend, namespace, ingress, service)
    namespace, ingress, service = label(namespace), label(ingress), label(service)
    set_header("X-Code", code)
    set_header("X-Format", var.http_accept)
    set_header("X-Namespace", namespace)
    set_header("X-Ingress-Name", ingress)
    set_header("X-Service-Name", service)
    set_header("X-Service-Port", backend and port_of(backend, namespace, service))
    set_header("X-Request-ID", var.req_id)
end

function _M.fallback(name)
    local route = var.resty_route
    local flags, backend, rest = str_match(route or "", "^(%S+) (%S+) (.*)$")
    if not backend or has_endpoints(backend) or not has_endpoints(name) then
        return
    end
    local _, _, _, namespace, ingress, service = str_match(route, ROUTE)
    set_error_headers("503", backend, namespace, ingress, service)
    var.resty_route = flags .. " " .. name .. " " .. rest
    var.proxy_upstream_name = name
end

function _M.error_page(code, name, global)
    if not has_endpoints(name) then
        if not global or not has_endpoints(global) then
            return ngx_exit(HTTP_NOT_FOUND)
        end
        name = global
        var.proxy_upstream_name = global
    end
    local _, backend, host, namespace, ingress, service, path = str_match(var.resty_route or "", ROUTE)
    set_error_headers(tostring(code), backend, namespace, ingress, service)
    -- The error location sends "/" upstream; the fallback sends the client's URI, so no header.
    set_header("X-Original-URI", var.request_uri)
    if backend then
        var.resty_route = "- " .. name .. " " .. host .. " " .. namespace .. " " .. ingress
                          .. " " .. service .. " " .. path
    else
        var.resty_route = "- " .. name .. " _ - - - -"
    end
end

return _M
