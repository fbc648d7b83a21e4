-- Test harness (not for Argo CD): runs a health script on one object the way Argo CD does (the object as
-- the global `obj`, the script's returned table read) and prints "<status>\t<message>".
-- Usage: lua5.4 argocd-health-harness.lua <health.lua> <object.json>
local function decode(text)
  local pos = 1
  local value
  local function fail(what)
    error("JSON: " .. what .. " at " .. pos)
  end
  local function skip()
    pos = text:find("[^ \t\r\n]", pos) or (#text + 1)
  end
  local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
  local function str()
    pos = pos + 1
    local out = {}
    while true do
      local c = text:sub(pos, pos)
      if c == "" then fail("unterminated string") end
      if c == '"' then pos = pos + 1; return table.concat(out) end
      if c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        if e == "u" then
          local code = tonumber(text:sub(pos + 2, pos + 5), 16) or fail("bad \\u")
          if code >= 0xD800 and code <= 0xDBFF and text:sub(pos + 6, pos + 7) == "\\u" then
            local low = tonumber(text:sub(pos + 8, pos + 11), 16)
            code = 0x10000 + (code - 0xD800) * 0x400 + (low - 0xDC00)
            pos = pos + 6
          end
          out[#out + 1] = utf8.char(code)
          pos = pos + 6
        else
          out[#out + 1] = escapes[e] or fail("bad escape")
          pos = pos + 2
        end
      else
        out[#out + 1] = c
        pos = pos + 1
      end
    end
  end
  function value()
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1; skip()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return t end
      while true do
        skip()
        if text:sub(pos, pos) ~= '"' then fail("expected a key") end
        local k = str(); skip()
        if text:sub(pos, pos) ~= ":" then fail("expected :") end
        pos = pos + 1
        t[k] = value(); skip()
        local d = text:sub(pos, pos); pos = pos + 1
        if d == "}" then return t end
        if d ~= "," then fail("expected , or }") end
      end
    elseif c == "[" then
      local t = {}
      pos = pos + 1; skip()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return t end
      while true do
        t[#t + 1] = value(); skip()
        local d = text:sub(pos, pos); pos = pos + 1
        if d == "]" then return t end
        if d ~= "," then fail("expected , or ]") end
      end
    elseif c == '"' then
      return str()
    elseif text:sub(pos, pos + 3) == "true" then pos = pos + 4; return true
    elseif text:sub(pos, pos + 4) == "false" then pos = pos + 5; return false
    elseif text:sub(pos, pos + 3) == "null" then pos = pos + 4; return nil
    else
      local n = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if n == nil or n == "" then fail("unexpected " .. c) end
      pos = pos + #n
      return math.tointeger(tonumber(n)) or tonumber(n)
    end
  end
  local v = value()
  skip()
  if pos <= #text then fail("trailing data") end
  return v
end

local script, objectFile = arg[1], arg[2]
local f = assert(io.open(objectFile, "r"))
local text = f:read("a")
f:close()
obj = decode(text)
local hs = assert(loadfile(script))()
if type(hs) ~= "table" or hs.status == nil then
  io.stderr:write("the script returned no health status\n")
  os.exit(2)
end
io.write(hs.status, "\t", (tostring(hs.message or "")):gsub("[\r\n]", " "), "\n")
