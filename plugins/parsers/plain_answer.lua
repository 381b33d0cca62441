-- The last parser of a chat agent's chain: a reply in plain prose, with no JSON blob and no tool named, is the
-- answer itself (as LangChain's conversational agents read a reply without an action). A reply that tried JSON
-- and got it wrong gives no verdict, so the model is asked again with what went wrong.
return function(text)
  if text:find("{", 1, true) or text:find("```", 1, true) then return nil end
  local answer = text:gsub("^%s+", ""):gsub("%s+$", "")
  if answer == "" then return nil end
  return { output = answer }
end
