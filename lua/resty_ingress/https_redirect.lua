-- ssl-redirect decided per request, so that a host gaining or losing its
-- certificate changes no nginx.conf (no reload). A proxied location whose
-- ssl-redirect is on flags its $resty_route "r" (or "e" with rewrite-target);
-- the balancer asks redirects() on the first try of such a route and, when
-- true, sends the request to the redirect fallback peer ("r") or ends the
-- try with an error that unbalanced.lua answers ("e", see there). No Lua
-- phase is added to any request for this. A location that answers 404 itself calls not_found_https() from its
-- rewrite phase. A request is redirected when it is plain HTTP and its host
-- has a real certificate (exact host, then one-label wildcard: the SNI rule
-- of certificate.lua). force-ssl-redirect stays a static `return`.
--
-- Which hosts have a certificate is a per-worker set rebuilt by refresh()
-- (worker.lua's poll) when the certificate store version moves, from the
-- store's `hosts` list: the request path does one or two table lookups,
-- never a shared-dict read or a certificate parse.
local ngx = ngx
local shared_dict = require("resty_ingress.shared_dict")

local var = ngx.var
local ngx_redirect = ngx.redirect
local ngx_exit = ngx.exit
local str_find = string.find
local str_sub = string.sub
local byte = string.byte

local STAR = byte("*")
local SLASH = byte("/")
local HTTP_NOT_FOUND = ngx.HTTP_NOT_FOUND

local _M = {}

-- exact["shop.test"] = true; wildcard[".example.com"] = true for "*.example.com".
local exact = {}
local wildcard = {}
local has_wildcard = false
local has_any = false
local applied_version = -1

-- Rebuilds the host sets when the certificate store moved; cheap otherwise (one dict read).
-- Without the certificates dict (an HTTP-only test harness) no host has a certificate.
function _M.refresh()
    local dict = ngx.shared.resty_certificates
    if not dict then
        return
    end
    local version = dict:get("version") or 0
    if version == applied_version then
        return
    end
    local next_exact, next_wildcard, any_wildcard = {}, {}, false
    local hosts = shared_dict.split_lines(dict:get("hosts"))
    for i = 1, #hosts do
        local host = hosts[i]
        if byte(host, 1) == STAR then
            next_wildcard[str_sub(host, 2)] = true
            any_wildcard = true
        else
            next_exact[host] = true
        end
    end
    exact, wildcard, has_wildcard, has_any = next_exact, next_wildcard, any_wildcard, #hosts > 0
    applied_version = version
end

-- True when `host` (as $host: lowercased, no port, no trailing dot) has a certificate.
local function covers(host)
    if exact[host] then
        return true
    end
    if has_wildcard then
        local dot = str_find(host, ".", 1, true)
        if dot and dot > 1 and wildcard[str_sub(host, dot)] then
            return true
        end
    end
    return false
end
_M.covers = covers

-- True when the client spoke plain HTTP, as ingress-nginx decides it: by
-- $pass_access_scheme (features/client-address-http.njk), which is the
-- client's X-Forwarded-Proto when use-forwarded-headers trusts it (a balancer
-- that terminates TLS in front: no redirect loop), "https" for a PROXY header
-- to port 443, else $scheme. A conf without that map: the connection's TLS.
local function plain_http()
    local scheme = var.pass_access_scheme
    if scheme == nil then
        return var.https ~= "on"
    end
    return scheme == "http"
end

-- True when this request is plain HTTP to a host with a certificate. Reads
-- no variable while no host has a certificate at all. known_host: the
-- request's $host when the caller knows it (the balancer, from the exact
-- server's $resty_route), else $host is read.
function _M.redirects(known_host)
    if not has_any then
        return false
    end
    local host = known_host or var.host
    return host ~= nil and covers(host) and plain_http()
end

-- $request_uri as ingress-nginx's HTTPS redirect sends it: without one
-- trailing "/" unless preserve-trailing-slash ("/" itself becomes "").
local function redirect_uri(preserve_slash)
    local uri = var.request_uri
    if not preserve_slash and byte(uri, -1) == SLASH then
        return str_sub(uri, 1, -2)
    end
    return uri
end

-- Redirects the request to https://<host><port_suffix><uri> when redirects();
-- returns otherwise. port_suffix: "" (ingress-nginx names no port), or
-- ":<https-port>" with use-port-in-redirects; preserve_slash: keep a trailing
-- "/" of $request_uri (preserve-trailing-slash). <host>: $host, or with
-- use-forwarded-headers $resty_redirect_host (X-Forwarded-Host's host name, as
-- ingress-nginx's redirect_host and the redirect server; defined only then).
function _M.redirect_if_covered(code, port_suffix, preserve_slash)
    if _M.redirects() then
        local host = var.resty_redirect_host or var.host
        return ngx_redirect("https://" .. host .. port_suffix .. redirect_uri(preserve_slash), code)
    end
end

-- rewrite_by_lua of a location that answers 404 itself (no backend), with ssl-redirect on.
function _M.not_found_https(code, port_suffix, preserve_slash)
    _M.redirect_if_covered(code, port_suffix, preserve_slash)
    return ngx_exit(HTTP_NOT_FOUND)
end

return _M
