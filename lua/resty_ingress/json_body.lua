-- Decodes the body of a configuration push as strict JSON (RFC 8259). By
-- default cjson also takes hexadecimal numbers ("port":0x50), NaN and
-- Infinity, and stops reading at a NUL byte, so "[...]<NUL>anything" passed;
-- none of that passes here. Its own cjson instance: the settings stay local.
local cjson = require("cjson.safe").new()

local type = type
local tostring = tostring
local str_find = string.find
local str_sub = string.sub

-- Our bodies nest four deep; cjson's default allows 1000.
local MAX_DEPTH = 16

cjson.decode_invalid_numbers(false)
cjson.decode_max_depth(MAX_DEPTH)

local _M = {}

-- Returns the decoded value, or nil and a reason.
function _M.decode(body)
    -- A raw NUL is never JSON: a string escapes it as \u0000.
    if str_find(body, "\0", 1, true) then
        return nil, "a NUL byte is not JSON"
    end
    return cjson.decode(body)
end

-- A body that must be an array (opening "[") or an object ("{"): cjson turns
-- [] and {} into the same empty table, so the first character tells them
-- apart. Returns the decoded table, or nil and a reason fit for a 400 answer
-- (`shape` when the body does not open with `opening`).
function _M.decode_table(body, opening, shape)
    if type(body) ~= "string" then
        return nil, "request body is empty"
    end
    local first = str_find(body, "%S")
    if not first or str_sub(body, first, first) ~= opening then
        return nil, shape
    end
    local decoded, err = _M.decode(body)
    if type(decoded) ~= "table" then
        return nil, "invalid JSON: " .. tostring(err)
    end
    return decoded
end

_M.null = cjson.null

return _M
