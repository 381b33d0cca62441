-- An encyclopedia over an offline fixture (corpus.lua): the summary of the entry whose title the topic names.
local corpus = require("corpus")

return {
  name = "encyclopedia",
  description = "summaries of topics in science and computing; input: the topic's name",
  run = function(topic)
    local t = topic:lower()
    for _, entry in ipairs(corpus.topics) do
      for _, name in ipairs(entry.names) do
        if t:find(name, 1, true) then return entry.summary end
      end
    end
    return "No article on '" .. topic .. "'."
  end,
}
