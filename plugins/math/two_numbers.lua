-- The parameters add, multiply and exponentiate share: a JSON Schema of two numbers, x and y. A module next to the
-- tools, loaded with require (which reads only this folder).
return function(x_description, y_description)
  return {
    type = "object",
    properties = { x = { type = "number", description = x_description },
                   y = { type = "number", description = y_description } },
    required = { "x", "y" },
    additionalProperties = false,
  }
end
