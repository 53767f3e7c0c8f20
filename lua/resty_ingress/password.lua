-- Checks a password against an htpasswd hash, the forms NGINX's auth_basic
-- takes: {PLAIN}, {SHA}, {SSHA} and Apache's $apr1$ here (as ngx_crypt does),
-- every other form through crypt(3) of the data plane's libxcrypt, which NGINX
-- itself links ($1$, bcrypt $2a$/$2b$/$2y$, $5$, $6$, yescrypt, DES). The
-- controller pushes only hashes of these forms (model/password-hashes.ts);
-- anything crypt(3) cannot read fails the check, it never lets a request in.
-- Comparisons of secrets run in time independent of where they differ.
local ffi = require("ffi")
local bit = require("bit")

local ngx = ngx
local md5_bin = ngx.md5_bin
local sha1_bin = ngx.sha1_bin
local decode_base64 = ngx.decode_base64
local encode_base64 = ngx.encode_base64
local band = bit.band
local bor = bit.bor
local bxor = bit.bxor
local lshift = bit.lshift
local rshift = bit.rshift
local byte = string.byte
local sub = string.sub
local find = string.find
local concat = table.concat
local pcall = pcall

local _M = {}

-- Equal strings, in a time that depends on the lengths only.
local function same(a, b)
    if #a ~= #b then
        return false
    end
    local diff = 0
    for i = 1, #a do
        diff = bor(diff, bxor(byte(a, i), byte(b, i)))
    end
    return diff == 0
end
_M.same = same

local ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

local function to64(out, value, count)
    for _ = 1, count do
        local i = band(value, 0x3f) + 1
        out[#out + 1] = sub(ITOA64, i, i)
        value = rshift(value, 6)
    end
end

-- MD5-crypt (Poul-Henning Kamp's algorithm, Apache's "$apr1$" magic): 1000 rounds of MD5.
local function md5_crypt(password, salt, magic)
    local final = md5_bin(password .. salt .. password)
    local parts = { password, magic, salt }
    for left = #password, 1, -16 do
        parts[#parts + 1] = sub(final, 1, left > 16 and 16 or left)
    end
    local first = sub(password, 1, 1)
    local length = #password
    while length > 0 do
        parts[#parts + 1] = band(length, 1) == 1 and "\0" or first
        length = rshift(length, 1)
    end
    final = md5_bin(concat(parts))
    for i = 0, 999 do
        local odd = band(i, 1) == 1
        local round = { odd and password or final }
        if i % 3 ~= 0 then round[#round + 1] = salt end
        if i % 7 ~= 0 then round[#round + 1] = password end
        round[#round + 1] = odd and final or password
        final = md5_bin(concat(round))
    end
    local f = { byte(final, 1, 16) }
    local out = { magic, salt, "$" }
    to64(out, bor(lshift(f[1], 16), lshift(f[7], 8), f[13]), 4)
    to64(out, bor(lshift(f[2], 16), lshift(f[8], 8), f[14]), 4)
    to64(out, bor(lshift(f[3], 16), lshift(f[9], 8), f[15]), 4)
    to64(out, bor(lshift(f[4], 16), lshift(f[10], 8), f[16]), 4)
    to64(out, bor(lshift(f[5], 16), lshift(f[11], 8), f[6]), 4)
    to64(out, f[12], 2)
    return concat(out)
end
_M.md5_crypt = md5_crypt

ffi.cdef[[
char *crypt_rn(const char *phrase, const char *setting, void *data, int size);
]]

-- NGINX links libcrypt: its symbols are in the process already; else load it by its soname.
local function find_crypt()
    local ok = pcall(function() return ffi.C.crypt_rn end)
    if ok then
        return ffi.C
    end
    local loaded, lib = pcall(ffi.load, "libcrypt.so.1")
    return loaded and lib or nil
end

local libcrypt
-- struct crypt_data is 32 KiB in libxcrypt; one buffer per worker (the request path never yields inside).
local CRYPT_DATA_SIZE = 32768
local crypt_data

local function crypt(password, hash)
    if libcrypt == nil then
        libcrypt = find_crypt() or false
        crypt_data = ffi.new("char[?]", CRYPT_DATA_SIZE)
    end
    if not libcrypt then
        return nil
    end
    local result = libcrypt.crypt_rn(password, hash, crypt_data, CRYPT_DATA_SIZE)
    if result == nil then
        return nil
    end
    return ffi.string(result)
end

-- True when `password` matches `hash` (an htpasswd entry); "" matches nothing.
function _M.verify(hash, password)
    if hash == "" or find(password, "\0", 1, true) then
        return false
    end
    local prefix = sub(hash, 1, 6)
    if prefix == "{PLAIN" and sub(hash, 1, 7) == "{PLAIN}" then
        return same(sub(hash, 8), password)
    end
    if sub(hash, 1, 5) == "{SHA}" then
        return same(sub(hash, 6), encode_base64(sha1_bin(password)))
    end
    if prefix == "{SSHA}" then
        local raw = decode_base64(sub(hash, 7))
        if not raw or #raw <= 20 then
            return false
        end
        return same(sub(raw, 1, 20), sha1_bin(password .. sub(raw, 21)))
    end
    if prefix == "$apr1$" then
        local salt_end = find(hash, "$", 7, true)
        if not salt_end then
            return false
        end
        return same(hash, md5_crypt(password, sub(hash, 7, salt_end - 1), "$apr1$"))
    end
    local computed = crypt(password, hash)
    return computed ~= nil and same(computed, hash)
end

return _M
