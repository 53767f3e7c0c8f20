-- The loopback-only configuration server (location /configuration):
--   POST /configuration/backends  the full set of backends (201 / 400 + reason)
--   PATCH /configuration/backends {"set":[...],"remove":[...]}: only what changed
--   GET  /configuration/backends  the set as loaded; ?name=a&name=b: only those
--   GET  /configuration/status    store version, the version every worker applied, each one's
--   POST /configuration/certificates  every certificate + host map (certificate_api.lua)
--   PATCH /configuration/certificates only what changed, in bounded requests (certificate_api.lua)
--   GET  /configuration/certificates  what is loaded, without PEMs or keys
--   POST /configuration/routes    every route policy (routes_api.lua; 201 / 400 + reason)
--   GET  /configuration/routes    the policies as stored ({"routes":[]} before any POST)
--   POST /configuration/client-auth  CA bundles + each host's client-certificate mode (client_auth_api.lua)
--   GET  /configuration/client-auth  the state as stored (CA PEMs are public certificates)
--   POST /configuration/credentials  every basic/digest user set (credentials_api.lua)
--   GET  /configuration/credentials  the sets' ids and user counts, no hash
local ngx = ngx
local cjson = require("cjson.safe")
local store = require("resty_ingress.store")
local validate = require("resty_ingress.validate")
local certificate_api = require("resty_ingress.certificate_api")
local routes_api = require("resty_ingress.routes_api")
local pending_api = require("resty_ingress.pending_api")
local client_auth_state = require("resty_ingress.client_auth_state")
local client_auth_api = require("resty_ingress.client_auth_api")
local credentials_api = require("resty_ingress.credentials_api")

local io_open = io.open
local next = next
local type = type

local LOCK_KEY = "configuration_lock"
local LOCK_TTL = 10 -- seconds; a crashed holder must not block pushes forever

local _M = {}

local function respond(status, body, content_type)
    ngx.status = status
    ngx.header["Content-Type"] = content_type or "text/plain"
    ngx.print(body)
    return ngx.exit(status)
end

-- Returns the body, or nil and a reason fit for a 400 answer.
local function read_body()
    ngx.req.read_body()
    local body = ngx.req.get_body_data()
    if body then
        return body
    end
    -- The body went to a temp file (bigger than client_body_buffer_size).
    local path = ngx.req.get_body_file()
    if not path then
        return nil, "request body is empty"
    end
    local file, err = io_open(path, "rb")
    if not file then
        return nil, "request body is empty: " .. err
    end
    body = file:read("*a")
    file:close()
    return body
end

-- Two concurrent POSTs would interleave their writes; serialise them.
local function with_lock(fn, ...)
    local dict = store.dict()
    for _ = 1, 200 do
        if dict:add(LOCK_KEY, true, LOCK_TTL) then
            local result, err = fn(...)
            dict:delete(LOCK_KEY)
            return result, err
        end
        ngx.sleep(0.01)
    end
    return nil, "another configuration push holds the lock"
end

-- A push: read the body, check it with parse (nil, reason -> 400), store what it
-- returns with apply under the lock, answer `status` and the new version.
local function push(parse, apply, status)
    local body, read_err = read_body()
    if not body then
        return respond(400, read_err .. "\n")
    end
    local parsed, reason = parse(body)
    if not parsed then
        return respond(400, reason .. "\n")
    end
    local version, err = with_lock(apply, parsed)
    if not version then
        ngx.log(ngx.ERR, "configuration: ", err)
        return respond(500, err .. "\n")
    end
    return respond(status, "version " .. version .. "\n")
end

local function apply_patch(patch)
    return store.patch_backends(patch.set, patch.remove)
end

local function post_backends()
    return push(validate.parse_backends, store.replace_backends, 201)
end

local function patch_backends()
    return push(validate.parse_patch, apply_patch, 200)
end

-- ?name= may repeat (no limit on how many); any other argument is ignored.
local function get_backends()
    local only = ngx.req.get_uri_args(0).name
    if type(only) == "string" then
        only = { only }
    elseif type(only) ~= "table" then
        only = nil
    end
    return respond(200, store.backends_json(only), "application/json")
end

-- version: what the store holds; applied: what every live worker holds (the
-- controller counts a push as applied only then); workers: each one's version.
local function get_status()
    local workers, applied = store.worker_status(ngx.worker.count())
    local version = store.version()
    -- An empty Lua table would encode as [], the contract says an object.
    local body = cjson.encode({ version = version, applied = applied, workers = workers })
    if next(workers) == nil then
        body = '{"version":' .. version .. ',"applied":' .. applied .. ',"workers":{}}'
    end
    return respond(200, body, "application/json")
end

local function post_routes()
    return push(routes_api.parse, store.replace_routes, 201)
end

local function get_routes()
    return respond(200, store.routes() or routes_api.EMPTY, "application/json")
end

-- certificate_api answers for itself (it takes the lock only once the body checks out).
local function certificates(answer)
    return function()
        local body, read_err = read_body()
        if not body then
            return respond(400, read_err .. "\n")
        end
        local status, text = answer(body, with_lock)
        return respond(status, text)
    end
end

local endpoints = {
    ["/configuration/backends"] = {
        GET = get_backends,
        POST = post_backends,
        PATCH = patch_backends,
    },
    ["/configuration/status"] = { GET = get_status },
    ["/configuration/certificates"] = {
        GET = function() return respond(200, certificate_api.summary(), "application/json") end,
        POST = certificates(certificate_api.post),
        PATCH = certificates(certificate_api.patch),
    },
    ["/configuration/client-auth"] = {
        GET = function() return respond(200, client_auth_state.stored(), "application/json") end,
        POST = function() return push(client_auth_api.parse, client_auth_state.replace, 201) end,
    },
    ["/configuration/routes"] = {
        GET = get_routes,
        POST = post_routes,
    },
    -- New plain hosts the catch-all serves until their reload (pending_api.lua, pending.lua).
    ["/configuration/pending"] = {
        GET = function() return respond(200, store.pending() or pending_api.EMPTY, "application/json") end,
        POST = function() return push(pending_api.parse, store.replace_pending, 201) end,
    },
    -- Basic/digest users (credentials_api.lua): hashes go in, only ids and counts come out.
    ["/configuration/credentials"] = {
        GET = function() return respond(200, credentials_api.summary(), "application/json") end,
        POST = function() return push(credentials_api.parse, credentials_api.replace, 201) end,
    },
}

function _M.call()
    local endpoint = endpoints[ngx.var.uri]
    if not endpoint then
        return respond(404, "unknown configuration endpoint " .. ngx.var.uri .. "\n")
    end
    local handler = endpoint[ngx.req.get_method()]
    if not handler then
        return respond(405, "method not allowed\n")
    end
    return handler()
end

return _M
