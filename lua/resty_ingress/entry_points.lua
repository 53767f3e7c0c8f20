-- The request-path functions the rendered nginx.conf calls, published by
-- init.lua as the one global `resty_ingress`. The rendered handlers call
-- `resty_ingress.balance()` or `resty_ingress.log("<backend>")`: a global
-- lookup and a call LuaJIT compiles into the request's trace, where
-- `require("...")` in every handler is a C call it cannot compile
-- (measured: ~0.7 µs per request over three phases). Per-request metrics
-- are not here: NGINX writes them to a buffered access log the controller
-- reads (http.njk), which costs a request far less than any Lua phase.
local balancer = require("resty_ingress.balancer")
local https_redirect = require("resty_ingress.https_redirect")
local unbalanced = require("resty_ingress.unbalanced")
local default_backend = require("resty_ingress.default_backend")
local client_auth = require("resty_ingress.client_auth")
local auth_signin = require("resty_ingress.auth_signin")
local auth = require("resty_ingress.auth")
local pending = require("resty_ingress.pending")

local _M = {}

function _M.entry_points()
    return {
        -- The balancer of the one upstream: ssl-redirect ("r"/"e" routes) and canary included.
        balance = balancer.balance,
        -- A location that answers 404 itself, with ssl-redirect on: see https_redirect.lua.
        not_found_https = https_redirect.not_found_https,
        -- error_page 500 of locations with ssl-redirect and rewrite-target ("e" routes): see unbalanced.lua.
        unbalanced = unbalanced.answer,
        -- log_by_lua only in locations of EWMA backends: it learns from response times.
        log = balancer.log,
        -- rewrite_by_lua only in locations with a default-backend: see default_backend.lua.
        default_backend = default_backend.fallback,
        -- rewrite_by_lua of the custom error pages' named locations: see default_backend.lua.
        error_page = default_backend.error_page,
        -- access_by_lua and ssl_certificate_by_lua of servers with client certificates: see client_auth.lua.
        client_cert = client_auth.check,
        client_cert_handshake = client_auth.handshake,
        -- rewrite_by_lua of external auth's sign-in named locations (401 only): see auth_signin.lua.
        auth_signin = auth_signin.redirect,
        -- access_by_lua only in locations with basic/digest authentication: see auth.lua.
        auth = auth.check,
        pending = pending.serve,
    }
end

return _M
