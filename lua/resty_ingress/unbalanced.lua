-- What a request of a location with ssl-redirect and rewrite-target gets
-- when its balancer chose no peer (balancer.lua: every other location gets a
-- fallback peer instead). balance() ends the first try of such a location's
-- route (flag "e") with an error when the request is to be redirected
-- (NGINX makes it a 500) and the location renders
-- `error_page 500 = @resty_unbalanced_https`, whose content handler is
-- answer(): the redirect to HTTPS when the request qualifies
-- (https_redirect.lua) — here $request_uri is still the client's URI, which
-- the rewritten request sent upstream no longer carries — else 503 when the
-- backend is unknown or has no endpoints, else 500 (the balancer failed for
-- another reason, e.g. a Lua error, already in error.log).
-- The verdict is derived again here, not passed along: a named location
-- starts with fresh module contexts (ngx.ctx is gone), and the per-worker
-- tables it reads are the ones the balancer just read.
local ngx = ngx
local balancer = require("resty_ingress.balancer")
local https_redirect = require("resty_ingress.https_redirect")

local var = ngx.var
local ngx_exit = ngx.exit
local backend_of = balancer.get
local redirect_if_covered = https_redirect.redirect_if_covered

local HTTP_SERVICE_UNAVAILABLE = ngx.HTTP_SERVICE_UNAVAILABLE
local HTTP_INTERNAL_SERVER_ERROR = ngx.HTTP_INTERNAL_SERVER_ERROR

local _M = {}

-- content_by_lua of @resty_unbalanced_https[_port][_slash] (code, port_suffix and
-- preserve_slash: as https_redirect.redirect_if_covered).
function _M.answer(code, port_suffix, preserve_slash)
    redirect_if_covered(code, port_suffix, preserve_slash)
    local backend = backend_of(var.proxy_upstream_name)
    if not backend or backend.count == 0 then
        return ngx_exit(HTTP_SERVICE_UNAVAILABLE)
    end
    return ngx_exit(HTTP_INTERNAL_SERVER_ERROR)
end

return _M
