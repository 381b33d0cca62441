-- A lua step (workflows/summarize_and_classify.yaml): counts the words and sentences of a text, and says whether
-- it fits a limit. Called with the step's inputs as one table; returns a table, which the next steps read as JSON.
return function(inputs)
  local text = inputs.text or ""
  local words, sentences = 0, 0
  for _ in text:gmatch("%S+") do words = words + 1 end
  for _ in text:gmatch("[%.!?]+") do sentences = sentences + 1 end
  local limit = tonumber(inputs.limit) or 50
  return {words = words, sentences = sentences, fits = words <= limit}
end
