-- The text forms of an endpoint address, checked byte by byte over the whole
-- Lua string. inet_pton() alone is not enough: it reads a C string, so
-- "10.0.0.1\0evil" (a JSON "\u0000" decodes to a NUL byte) passed as
-- 10.0.0.1 while the whole string went on to NGINX. The grammar is the one
-- the controller's model accepts (node:net isIPv4, and isIPv6 without a
-- zone id): Lua must accept every address the model sends, or one endpoint
-- would stop every push, and nothing else.
--   IPv4: four decimal octets 0..255, no leading zero ("010" is octal to some parsers).
--   IPv6: groups of 1..4 hex digits, at most one "::" standing for one or more
--         zero groups, optionally ending in an IPv4 address (two groups);
--         8 groups without "::", at most 7 written with it. No zone, no brackets.
local str_find = string.find
local str_sub = string.sub
local str_byte = string.byte
local type = type

local ZERO = 48 -- "0"
local NINE = 57 -- "9"
local DOT = 46 -- "."
local MAX_LEN = 45 -- "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255"

local _M = {}

-- One byte at a time, not a pattern: LuaJIT does not compile string.match, and
-- a push of 10,000 backends checks 50,000 addresses.
local function is_ipv4(text)
    local dots, digits, value, first = 0, 0, 0, 0
    for i = 1, #text do
        local byte = str_byte(text, i)
        if byte == DOT then
            if digits == 0 or dots == 3 then
                return false
            end
            dots, digits, value = dots + 1, 0, 0
        elseif byte >= ZERO and byte <= NINE then
            if digits == 0 then
                first = byte
            elseif first == ZERO or digits == 3 then
                return false -- a leading zero, or a fourth digit
            end
            digits = digits + 1
            value = value * 10 + byte - ZERO
            if value > 255 then
                return false
            end
        else
            return false
        end
    end
    return dots == 3 and digits > 0
end

-- Number of 16-bit groups in "g:g:...:g" (an IPv4 last group counts 2 when
-- ipv4_last), 0 for "", or nil when a group is empty or malformed.
local function count_groups(text, ipv4_last)
    local len = #text
    if len == 0 then
        return 0
    end
    local count, start = 0, 1
    while true do
        local colon = str_find(text, ":", start, true)
        local group = str_sub(text, start, (colon or len + 1) - 1)
        if not colon and ipv4_last and str_find(group, ".", 1, true) then
            return is_ipv4(group) and count + 2 or nil
        end
        if not str_find(group, "^[0-9a-fA-F][0-9a-fA-F]?[0-9a-fA-F]?[0-9a-fA-F]?$") then
            return nil
        end
        count = count + 1
        if not colon then
            return count
        end
        start = colon + 1
    end
end

local function is_ipv6(text)
    if str_find(text, "[^0-9a-fA-F:.]") then
        return false
    end
    local double = str_find(text, "::", 1, true)
    if not double then
        return count_groups(text, true) == 8
    end
    if str_find(text, "::", double + 1, true) then
        return false -- a second "::", or ":::"
    end
    local head = count_groups(str_sub(text, 1, double - 1), false)
    local tail = count_groups(str_sub(text, double + 2), true)
    return head ~= nil and tail ~= nil and head + tail <= 7
end

-- "ipv4", "ipv6", or nil for anything else (names, zones, brackets, ports, garbage).
function _M.family(address)
    if type(address) ~= "string" or #address < 2 or #address > MAX_LEN then
        return nil
    end
    if is_ipv4(address) then
        return "ipv4"
    end
    if is_ipv6(address) then
        return "ipv6"
    end
    return nil
end

function _M.is_ip(address)
    return _M.family(address) ~= nil
end

return _M
