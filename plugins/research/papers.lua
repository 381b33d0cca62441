-- A paper index over an offline fixture (corpus.lua): papers ranked by how many of the query's words their title
-- and keywords hold, as a list of {title, authors, year, venue}.
local corpus = require("corpus")

local function words(text)
  local out = {}
  for w in text:lower():gmatch("%w+") do
    if #w > 2 then out[#out + 1] = w end
  end
  return out
end

return {
  name = "papers",
  description = "finds research papers by keywords; returns title, authors, year and venue",
  parameters = {
    type = "object",
    properties = {
      query = { type = "string", description = "keywords to look for" },
      max_results = { type = "integer", minimum = 1, maximum = 5, description = "how many papers (default 2)" },
    },
    required = { "query" },
    additionalProperties = false,
  },
  run = function(args)
    local query = words(args.query)
    local ranked = {}
    for _, paper in ipairs(corpus.papers) do
      local haystack = (paper.title .. " " .. paper.keywords):lower()
      local hits = 0
      for _, w in ipairs(query) do
        if haystack:find(w, 1, true) then hits = hits + 1 end
      end
      if hits > 0 then ranked[#ranked + 1] = { paper = paper, hits = hits } end
    end
    table.sort(ranked, function(a, b)
      if a.hits ~= b.hits then return a.hits > b.hits end
      return a.paper.year < b.paper.year
    end)
    local found = engine.json.array()
    for i = 1, math.min(args.max_results or 2, #ranked) do
      local p = ranked[i].paper
      found[i] = { title = p.title, authors = p.authors, year = p.year, venue = p.venue }
    end
    engine.log("query '" .. args.query .. "': " .. #ranked .. " of " .. #corpus.papers .. " papers match")
    return found
  end,
}
