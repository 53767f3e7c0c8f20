-- luacheck for lua/: OpenResty globals only, so any global write is a warning.
std = "ngx_lua"
max_line_length = 120
codes = true
