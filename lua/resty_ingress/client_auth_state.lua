-- The client-certificate state pushed to POST /configuration/client-auth
-- (client_auth_api.lua checks it), kept in the certificates' shared dict:
--   client_auth           the accepted body (JSON text)
--   client_auth_version   +1 per accepted POST (0 = nothing pushed since start)
-- Every worker decodes it once per version. Two readers: client_auth.lua (the
-- certificate and access phases of a server with client auth) and
-- client_auth_session.lua (client hello, every TLS handshake).
local cjson = require("cjson.safe")
local certificate_store = require("resty_ingress.certificate_store")
local client_auth_api = require("resty_ingress.client_auth_api")

local STATE_KEY = "client_auth"
local VERSION_KEY = "client_auth_version"

local _M = {}

-- Per worker: the decoded state of one store version.
local held_version = -1
local held

-- Stores a body client_auth_api.parse accepted; returns the new version.
function _M.replace(parsed)
    local dict = certificate_store.dict()
    local ok, err = dict:safe_set(STATE_KEY, parsed.body)
    if not ok then
        return nil, "client-auth: " .. err
    end
    local version = (dict:get(VERSION_KEY) or 0) + 1
    ok, err = dict:safe_set(VERSION_KEY, version)
    if not ok then
        return nil, "client-auth: " .. err
    end
    return version
end

function _M.stored()
    return certificate_store.dict():get(STATE_KEY) or client_auth_api.EMPTY
end

-- The decoded state ({cas = {...}, hosts = {...}}) and its version; callers must not modify it.
function _M.current()
    local dict = certificate_store.dict()
    local version = dict:get(VERSION_KEY) or 0
    if version ~= held_version then
        held = cjson.decode(dict:get(STATE_KEY) or client_auth_api.EMPTY)
        held_version = version
    end
    return held, version
end

return _M
