-- luacheck for lua/: OpenResty globals only, so any global write is a warning.
std = "ngx_lua"
max_line_length = 120
codes = true

-- The one deliberate exception: init.lua publishes the request-path entry
-- points as the global `resty_ingress`, once, in the master before fork
-- (rendered phase handlers call it instead of a per-request require(), which
-- LuaJIT cannot compile). Declared here so no other file may write it.
files["lua/resty_ingress/init.lua"] = { globals = { "resty_ingress" } }
