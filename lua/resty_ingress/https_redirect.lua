-- ssl-redirect decided per request, so that a host gaining or losing its
-- certificate changes no nginx.conf (no reload). A location whose
-- ssl-redirect is on renders `resty_ingress.rewrite_https(...)` (or
-- `not_found_https` when it answers 404 itself) with the redirect code and
-- port as literals; its plain-HTTP requests are redirected when the request
-- host has a real certificate (exact host, then one-label wildcard: the
-- SNI rule of certificate.lua). Locations with ssl-redirect off keep the
-- plain handler and pay nothing; force-ssl-redirect stays a static `return`.
--
-- Which hosts have a certificate is a per-worker set rebuilt by refresh()
-- (worker.lua's poll) when the certificate store version moves, from the
-- store's `hosts` list: the request path does one or two table lookups,
-- never a shared-dict read or a certificate parse.
local ngx = ngx
local shared_dict = require("resty_ingress.shared_dict")
local balancer = require("resty_ingress.balancer")

local var = ngx.var
local ngx_redirect = ngx.redirect
local ngx_exit = ngx.exit
local str_find = string.find
local str_sub = string.sub
local byte = string.byte
local balancer_rewrite = balancer.rewrite

local STAR = byte("*")
local HTTP_NOT_FOUND = ngx.HTTP_NOT_FOUND

local _M = {}

-- exact["shop.test"] = true; wildcard[".example.com"] = true for "*.example.com".
local exact = {}
local wildcard = {}
local has_wildcard = false
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
    exact, wildcard, has_wildcard = next_exact, next_wildcard, any_wildcard
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

-- Redirects a plain-HTTP request of a host with a certificate to
-- https://$host<port_suffix>$request_uri; returns otherwise.
-- port_suffix: "" for 443, else ":<https-port>".
local function redirect_if_covered(code, port_suffix)
    if var.https == "on" then
        return
    end
    local host = var.host
    if host and covers(host) then
        return ngx_redirect("https://" .. host .. port_suffix .. var.request_uri, code)
    end
end

-- rewrite_by_lua of a proxied location with ssl-redirect on.
function _M.rewrite_https(name, code, port_suffix)
    redirect_if_covered(code, port_suffix)
    return balancer_rewrite(name)
end

-- rewrite_by_lua of a location that answers 404 itself (no backend), with ssl-redirect on.
function _M.not_found_https(code, port_suffix)
    redirect_if_covered(code, port_suffix)
    return ngx_exit(HTTP_NOT_FOUND)
end

return _M
