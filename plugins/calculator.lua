-- A safe arithmetic calculator: a small recursive-descent parser, never `load`, so the input cannot run code.
-- Accepts numbers, + - * / % ^ (and **), parentheses, unary minus, a few functions (sqrt, abs, round, floor,
-- ceil, min, max) and English operator words (plus, minus, times, multiplied by, divided by, over, mod, squared).

local words = {
  { "multiplied by", "*" }, { "divided by", "/" }, { "to the power of", "^" },
  { "plus", "+" }, { "minus", "-" }, { "times", "*" }, { "over", "/" }, { "mod", "%" },
  { "squared", "^2" }, { "cubed", "^3" },
}

local functions = {
  sqrt = math.sqrt, abs = math.abs, floor = math.floor, ceil = math.ceil,
  round = function(x) return math.floor(x + 0.5) end,
  min = math.min, max = math.max,
}

-- Each rewrite runs only when its trigger is present: most inputs are plain arithmetic and need none.
local function normalize(text)
  local s = text
  if s:find("%a") or s:find("\xC3\x97", 1, true) then
    s = " " .. s:lower() .. " "
    for _, w in ipairs(words) do
      s = s:gsub("%f[%a]" .. w[1] .. "%f[%A]", " " .. w[2] .. " ")
    end
    s = s:gsub("(%d)%s*[x]%s*(%d)", "%1*%2"):gsub("\xC3\x97", "*")
  end
  if s:find(",", 1, true) then s = s:gsub("(%d),(%d%d%d)", "%1%2") end  -- 1,000 is a thousand
  if s:find("**", 1, true) then s = s:gsub("%*%*", "^") end
  return s
end

local function tokenize(s)
  local tokens, i = {}, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c == " " or c:match("%s") then
      i = (s:find("[^%s]", i)) or (#s + 1)
    elseif c:match("[%d%.]") then
      local num = s:match("^%d*%.?%d+[eE][%+%-]?%d+", i) or s:match("^%d+%.?%d*", i) or s:match("^%.%d+", i)
      if not num then error("bad number at position " .. i) end
      tokens[#tokens + 1] = { kind = "num", value = tonumber(num) }
      i = i + #num
    elseif c:match("%a") then
      local name = s:match("^%a+", i)
      if not functions[name] then error("unknown word '" .. name .. "'") end
      tokens[#tokens + 1] = { kind = "fn", value = name }
      i = i + #name
    elseif c:match("[%+%-%*/%%%^%(%),]") then
      tokens[#tokens + 1] = { kind = c }
      i = i + 1
    else
      error("unexpected character '" .. c .. "'")
    end
  end
  return tokens
end

local function evaluate(tokens)
  local pos = 1
  local function peek() return tokens[pos] and tokens[pos].kind end
  local function take(kind)
    if peek() ~= kind then error("expected '" .. kind .. "'") end
    pos = pos + 1
  end
  local expr

  local function primary()
    local t = tokens[pos]
    if not t then error("the expression ends too early") end
    if t.kind == "num" then pos = pos + 1; return t.value end
    if t.kind == "(" then
      pos = pos + 1
      local v = expr()
      take(")")
      return v
    end
    if t.kind == "fn" then
      pos = pos + 1
      take("(")
      local args = { expr() }
      while peek() == "," do pos = pos + 1; args[#args + 1] = expr() end
      take(")")
      return functions[t.value](table.unpack(args))
    end
    error("unexpected '" .. t.kind .. "'")
  end

  local function unary()
    if peek() == "-" then pos = pos + 1; return -unary() end
    if peek() == "+" then pos = pos + 1; return unary() end
    return primary()
  end

  local function power()
    local base = unary()
    if peek() == "^" then pos = pos + 1; return base ^ power() end  -- right-associative
    return base
  end

  local function term()
    local v = power()
    while peek() == "*" or peek() == "/" or peek() == "%" do
      local op = peek(); pos = pos + 1
      local rhs = power()
      if op == "*" then v = v * rhs
      elseif op == "/" then
        if rhs == 0 then error("division by zero") end
        v = v / rhs
      else
        if rhs == 0 then error("modulo by zero") end
        v = v % rhs
      end
    end
    return v
  end

  function expr()
    local v = term()
    while peek() == "+" or peek() == "-" do
      local op = peek(); pos = pos + 1
      local rhs = term()
      v = op == "+" and v + rhs or v - rhs
    end
    return v
  end

  local v = expr()
  if pos <= #tokens then error("unexpected '" .. tokens[pos].kind .. "' after the expression") end
  return v
end

local function format(v)
  if v ~= v then error("the result is not a number") end
  if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%d", v) end
  return (string.format("%.10g", v))
end

return {
  name = "calculator",
  description = "Evaluates an arithmetic expression such as 12 * 7 + 3 or (2 + 3) ^ 2 and returns the number.",
  run = function(input)
    local text = input
    if text:find("?", 1, true) or text:find("=", 1, true) or text:find("hat", 1, true) then
      text = text:gsub("^%s*[Ww]hat%s+is%s+", ""):gsub("[%?=]%s*$", "")
    end
    return format(evaluate(tokenize(normalize(text))))
  end,
}
