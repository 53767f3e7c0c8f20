-- Decodes the body of a configuration push as strict JSON (RFC 8259). By
-- default cjson also takes hexadecimal numbers ("port":0x50), NaN and
-- Infinity, and stops reading at a NUL byte, so "[...]<NUL>anything" passed;
-- none of that passes here. Its own cjson instance: the settings stay local.
local cjson = require("cjson.safe").new()

local str_find = string.find

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

_M.null = cjson.null

return _M
