-- A Search tool over an offline fixture (plugins/search_fixture.lua): the entry sharing the most keywords wins.
local fixture = require("search_fixture")

return {
  name = "Search",
  description = "useful for when you need to answer questions about current events",
  run = function(query)
    local q = query:lower()
    local best, best_hits = nil, 0
    for _, entry in ipairs(fixture) do
      local hits = 0
      for _, k in ipairs(entry.keywords) do
        if q:find(k, 1, true) then hits = hits + 1 end
      end
      if hits > best_hits then best, best_hits = entry, hits end
    end
    engine.log("query '" .. query .. "' matched " .. best_hits .. " keywords")
    return best and best.answer or ("No results found for '" .. query .. "'.")
  end,
}
