-- A web search over an offline fixture (corpus.lua): the snippets that share the most words with the query.
local corpus = require("corpus")

return {
  name = "web_search",
  description = "searches the web for recent news and facts; input: a search query",
  run = function(query)
    local q = query:lower()
    local best, best_hits = nil, 0
    for _, page in ipairs(corpus.pages) do
      local hits = 0
      for _, k in ipairs(page.keywords) do
        if q:find(k, 1, true) then hits = hits + 1 end
      end
      if hits > best_hits then best, best_hits = page, hits end
    end
    if not best then return "No results for '" .. query .. "'." end
    return best.title .. ": " .. best.snippet
  end,
}
