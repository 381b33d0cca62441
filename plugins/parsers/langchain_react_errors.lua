-- The last parser of a ReAct chain: when no parser before it found a step, the model is told what LangChain's
-- ReAct parser tells it (with handle_parsing_errors=True), word for word, instead of the engine's own reasons.
-- `failures` lists why each parser before this one found no step; engine.log puts a line in the trace.
return function(text, failures)
  engine.log("no step after " .. #failures .. " parser(s): " .. (failures[#failures] or "none"))
  if not text:find("Action%s*%d*%s*:") then
    return { retry = "Invalid Format: Missing 'Action:' after 'Thought:'" }
  end
  if not text:find("Action%s*%d*%s*Input%s*%d*%s*:") then
    return { retry = "Invalid Format: Missing 'Action Input:' after 'Action:'" }
  end
  return { retry = "Invalid or incomplete response" }
end
