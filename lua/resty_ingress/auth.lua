-- The access phase of the locations with basic or digest authentication
-- (rendered only there: `access_by_lua_block { resty_ingress.auth("<route key>") }`,
-- see rootfs/etc/nginx/template/features/basic-auth.njk). The users of each
-- Ingress come from the controller (credentials_api.lua); a request finds its
-- Ingress by words 4 and 5 of the location's route key (<namespace> <ingress>),
-- a literal of the handler (the location's `$resty_route`): no variable read.
-- As ingress-nginx: no user set for the Ingress (its Secret is missing or
-- unusable) → 503; no or wrong credentials → 401 with the realm's
-- challenge; good ones → on, without the Authorization header upstream
-- ($remote_user, which the access log shows, is read before it goes, so it stays).
-- A plain-HTTP request the balancer sends to HTTPS (ssl-redirect, route flag
-- r/e, the same check as balancer.lua) is not asked for credentials: as in
-- ingress-nginx, the redirect comes first, and no password crosses plain HTTP.
-- Each worker decodes the sets again only when their version moved; a basic
-- header that passed is remembered per set (bcrypt costs milliseconds by
-- design), at most CACHE_MAX of them, forgotten with the set.
local cjson_safe = require("cjson.safe")
local credentials_api = require("resty_ingress.credentials_api")
local password = require("resty_ingress.password")
local digest_auth = require("resty_ingress.digest_auth")
local route = require("resty_ingress.route")
local https_redirect = require("resty_ingress.https_redirect")

local ngx = ngx
local var = ngx.var
local exit = ngx.exit
local decode_base64 = ngx.decode_base64
local find = string.find
local sub = string.sub
local lower = string.lower
local type = type
local route_of = route.of
local redirects = https_redirect.redirects

local CACHE_MAX = 1024
local ROUTES_MAX = 10000

local json = cjson_safe.new()

local _M = {}

local version = -1
local sets = {}
-- $resty_route → "<namespace>/<ingress>".
local ids = {}
local id_count = 0

local function current_sets()
    local shared = credentials_api.dict()
    local stored = shared:get("version") or 0
    if stored ~= version then
        local decoded = json.decode(shared:get("sets") or "[]") or {}
        local by_id = {}
        for i = 1, #decoded do
            local set = decoded[i]
            set.verified = {}
            set.verified_count = 0
            by_id[set.id] = set
        end
        sets = by_id
        version = stored
    end
    return sets
end

local function id_of(value)
    local id = ids[value]
    if id then
        return id
    end
    local _, _, namespace, ingress = find(value, "^%S+ %S+ %S+ (%S+) (%S+)")
    if not namespace then
        return nil
    end
    if id_count >= ROUTES_MAX then
        ids = {}
        id_count = 0
    end
    id = namespace .. "/" .. ingress
    ids[value] = id
    id_count = id_count + 1
    return id
end

-- NGINX parses $remote_user from the Authorization header when first read, then keeps it.
local function pass_basic()
    local _ = var.remote_user
    ngx.req.clear_header("Authorization")
end

local function refuse_basic(set)
    ngx.header["WWW-Authenticate"] = 'Basic realm="' .. set.realm .. '"'
    return exit(ngx.HTTP_UNAUTHORIZED)
end

local function basic(set, header)
    if not header then
        return refuse_basic(set)
    end
    if set.verified[header] then
        return pass_basic()
    end
    if #header < 7 or lower(sub(header, 1, 6)) ~= "basic " then
        return refuse_basic(set)
    end
    local start = find(header, "[^ ]", 7)
    local decoded = start and decode_base64(sub(header, start))
    local colon = decoded and find(decoded, ":", 1, true)
    if not colon then
        return refuse_basic(set)
    end
    local hash = set.users[sub(decoded, 1, colon - 1)]
    if not hash or not password.verify(hash, sub(decoded, colon + 1)) then
        return refuse_basic(set)
    end
    if set.verified_count >= CACHE_MAX then
        set.verified = {}
        set.verified_count = 0
    end
    set.verified[header] = true
    set.verified_count = set.verified_count + 1
    return pass_basic()
end

-- value: the location's route key ($resty_route as rendered).
function _M.check(value)
    if type(value) ~= "string" then
        return exit(ngx.HTTP_SERVICE_UNAVAILABLE)
    end
    local chosen = route_of(value)
    if chosen.redirect ~= nil and redirects(chosen.host) then
        return
    end
    local id = id_of(value)
    local set = id and current_sets()[id]
    if not set then
        return exit(ngx.HTTP_SERVICE_UNAVAILABLE)
    end
    local header = var.http_authorization
    if set.type == "basic" then
        return basic(set, header)
    end
    return digest_auth.check(set, header)
end

return _M
