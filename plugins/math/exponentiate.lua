-- exponentiate(x, y): x to the power of y, a typed tool as add.lua. A result that is not a finite number is an
-- error the model reads, not a silent null.
local two_numbers = require("two_numbers")

return {
  name = "exponentiate",
  description = "Raises x to the power of y: x ^ y.",
  parameters = two_numbers("the base", "the exponent"),
  run = function(args)
    local r = args.x ^ args.y
    if r ~= r or r == math.huge or r == -math.huge then error("the result is not a finite number") end
    if r == math.floor(r) and math.abs(r) < 2^53 then return math.tointeger(r) end
    return r
  end,
}
