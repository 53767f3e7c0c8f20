-- The original URL a sign-in redirect carries (external auth, auth-signin):
-- ingress-nginx escapes $request_uri with set-misc's set_escape_uri, which
-- this NGINX lacks, and its e2e tests check the exact bytes. The same
-- escaping here: every byte but letters, digits and !$'()*,-.@_`|~ becomes
-- %XX in upper-case hex (ngx.escape_uri keeps a different set). Runs only on
-- the 401 path, in the sign-in named location's set_by_lua.
local ngx = ngx
local byte = string.byte
local format = string.format
local gsub = string.gsub

local _M = {}

local function hex(char)
    return format("%%%02X", byte(char))
end

-- Escapes `text` as set-misc's set_escape_uri does.
function _M.escape_uri(text)
    if text == nil then
        return ""
    end
    return (gsub(text, "[^%w!$'()*,%-%.@_`|~]", hex))
end

-- The escaped request URI of the current request (set_by_lua of the sign-in location).
function _M.escaped_request_uri()
    return _M.escape_uri(ngx.var.request_uri)
end

return _M
