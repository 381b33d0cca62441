-- Adds two numbers given as "a, b", as the LangChain.js peer's add tool does.
return {
  name = "add",
  description = 'adds two numbers given as "a, b"',
  run = function(input)
    local a, b = input:match("^%s*(%-?[%d.]+)%s*,%s*(%-?[%d.]+)%s*$")
    if not a then error("expected two numbers as 'a, b', got '" .. input .. "'") end
    local sum = tonumber(a) + tonumber(b)
    return sum == math.floor(sum) and string.format("%d", sum) or tostring(sum)
  end,
}
