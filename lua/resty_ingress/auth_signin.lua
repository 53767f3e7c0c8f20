-- The sign-in redirect of external auth (auth-signin): a 401 of the auth
-- service becomes a 302 to the sign-in URL, which the controller renders as a
-- Lua string literal with variables from an allow-list only
-- (model/features/external-auth-url.ts); they are expanded here. The original
-- URL's $escaped_request_uri is $request_uri escaped as ingress-nginx's
-- set_escape_uri (set-misc, which this NGINX lacks) escapes it, byte for byte:
-- every byte but letters, digits and !$'()*,-.@_`|~ becomes %XX in upper-case
-- hex (ngx.escape_uri keeps a different set), as its e2e tests check. Runs
-- only on the 401 path, in the sign-in named location's rewrite phase.
local ngx = ngx
local byte = string.byte
local format = string.format
local gsub = string.gsub

local _M = {}

-- The variables a sign-in URL may hold (the model refuses any other).
local VARIABLES = {
    host = true,
    http_host = true,
    scheme = true,
    request_uri = true,
}

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

local function expand(name)
    if name == "escaped_request_uri" then
        return _M.escape_uri(ngx.var.request_uri)
    end
    if VARIABLES[name] then
        return ngx.var[name] or ""
    end
    -- Not a variable of the allow-list: left as written (the model never renders one).
    return nil
end

-- The URL `target` with its variables expanded (NGINX reads a name as the longest run of letters, digits and _).
function _M.expand(target)
    return (gsub(target, "%$([%w_]+)", expand))
end

-- rewrite_by_lua of the sign-in named location: answers 302 to `target` expanded.
function _M.redirect(target)
    return ngx.redirect(_M.expand(target), ngx.HTTP_MOVED_TEMPORARILY)
end

return _M
