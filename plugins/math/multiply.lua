-- multiply(x, y): a typed tool, as add.lua.
local two_numbers = require("two_numbers")

return {
  name = "multiply",
  description = "Multiplies two numbers: x * y.",
  parameters = two_numbers("the first number", "the second number"),
  run = function(args) return args.x * args.y end,
}
