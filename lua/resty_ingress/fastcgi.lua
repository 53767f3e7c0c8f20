-- FastCGI locations (backend-protocol FCGI). The balancer's fallback peers
-- (the 503 server, the ssl-redirect server) speak HTTP, which fastcgi_pass
-- cannot talk to: a request sent there would end in a 502 and an [error]
-- "unsupported FastCGI protocol version". So an FCGI location decides both
-- cases in its rewrite phase, before the balancer runs (rewrite, not access:
-- `satisfy any` may skip the rest of the access phase): the redirect of a
-- plain-HTTP request whose host has a certificate (its route flags say
-- ssl-redirect is on), then 503 when its backend is unknown or has no
-- endpoints. Only FCGI locations run this step; every other location pays
-- nothing. (A canary split whose canary backend has no endpoints still goes
-- to the 503 server: a 502 there.)
local ngx = ngx
local balancer = require("resty_ingress.balancer")
local https_redirect = require("resty_ingress.https_redirect")

local var = ngx.var
local ngx_exit = ngx.exit
local str_byte = string.byte
local backend_of = balancer.get
local redirect_if_covered = https_redirect.redirect_if_covered

local HTTP_SERVICE_UNAVAILABLE = ngx.HTTP_SERVICE_UNAVAILABLE
local NO_FLAGS = str_byte("-")

local _M = {}

-- rewrite_by_lua of an FCGI location. code, port_suffix and preserve_slash: the
-- ssl-redirect code, "" or ":<https-port>" (use-port-in-redirects) and
-- preserve-trailing-slash; nil without --https-port (no redirect).
function _M.check(code, port_suffix, preserve_slash)
    if code ~= nil and str_byte(var.resty_route, 1) ~= NO_FLAGS then
        redirect_if_covered(code, port_suffix, preserve_slash)
    end
    local backend = backend_of(var.proxy_upstream_name)
    if not backend or backend.count == 0 then
        return ngx_exit(HTTP_SERVICE_UNAVAILABLE)
    end
end

return _M
