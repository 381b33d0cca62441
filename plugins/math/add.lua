-- add(x, y): a typed tool. Its parameters are a JSON Schema, so the engine checks the model's arguments before
-- this runs: x and y are numbers here, always.
local two_numbers = require("two_numbers")

return {
  name = "add",
  description = "Adds two numbers: x + y.",
  parameters = two_numbers("the first number", "the second number"),
  run = function(args) return args.x + args.y end,
}
