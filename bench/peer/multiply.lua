-- Multiplies two numbers given as "a, b", as the LangChain.js peer's multiply tool does.
return {
  name = "multiply",
  description = 'multiplies two numbers given as "a, b"',
  run = function(input)
    local a, b = input:match("^%s*(%-?[%d.]+)%s*,%s*(%-?[%d.]+)%s*$")
    if not a then error("expected two numbers as 'a, b', got '" .. input .. "'") end
    local product = tonumber(a) * tonumber(b)
    return product == math.floor(product) and string.format("%d", product) or tostring(product)
  end,
}
