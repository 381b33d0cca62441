-- word_count: counts the words in a text. A tool of one text input: a ReAct agent's Action Input, a tool-calling
-- agent's `input` argument, or (as a `kind: lua` step) the step's `text` input.
-- Change it, or copy it to make another tool; try it alone with: engine tool workflow.yaml word_count --input "some text"
return {
  name = "word_count",
  description = "Counts the words in a text. Input: the text.",
  run = function(input)
    local text = type(input) == "table" and (input.text or "") or tostring(input or "")
    local words = 0
    for _ in text:gmatch("%S+") do words = words + 1 end
    return words
  end,
}
