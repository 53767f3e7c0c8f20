-- init_by_lua (master, before fork): load every module once so workers share
-- the compiled code, and fail NGINX start-up with a clear message when the
-- configuration lacks the shared dict the other modules rely on or the
-- fallback peers (balancer.lua). Publishes the request-path entry points as
-- the one global, `resty_ingress` (see entry_points.lua for why the handlers
-- do not call require()).
local store = require("resty_ingress.store")
local balancer = require("resty_ingress.balancer")

local error = error

local _M = {}

local MODULES = {
    "cjson.safe",
    "resty_ingress.shared_dict",
    "resty_ingress.json_body",
    "resty_ingress.ip_address",
    "resty_ingress.validate",
    "resty_ingress.round_robin",
    "resty_ingress.ewma",
    "resty_ingress.canary",
    "resty_ingress.route",
    "resty_ingress.balancer",
    "resty_ingress.routes_api",
    "resty_ingress.pending_api",
    "resty_ingress.pending",
    "resty_ingress.configuration",
    "resty_ingress.worker",
    "resty_ingress.entry_points",
    "resty_ingress.certificate_store",
    "resty_ingress.certificate_api",
    "resty_ingress.client_auth_state",
    "resty_ingress.client_auth_session",
    "resty_ingress.certificate",
    "resty_ingress.client_auth_api",
    "resty_ingress.client_auth",
    "resty_ingress.https_redirect",
    "resty_ingress.unbalanced",
    "resty_ingress.default_backend",
    "resty_ingress.password",
    "resty_ingress.credentials_api",
    "resty_ingress.digest_auth",
    "resty_ingress.auth",
}

-- fallbacks: { unavailable = "unix:<path>", https_redirect = "unix:<path>" | nil },
-- the servers of http.njk that answer a request its balancer has no peer for.
function _M.init(fallbacks)
    store.dict() -- raises when lua_shared_dict resty_backends is missing
    fallbacks = fallbacks or {}
    local ok, err = balancer.set_fallbacks(fallbacks.unavailable, fallbacks.https_redirect)
    if not ok then
        error("resty_ingress.init: " .. err)
    end
    for i = 1, #MODULES do
        require(MODULES[i])
    end
    -- The one global we define; the workers inherit it from the master.
    resty_ingress = require("resty_ingress.entry_points").entry_points()
end

return _M
