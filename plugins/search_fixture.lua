-- Offline stand-in for a web search index: the Search tool looks answers up here.
return {
  { keywords = { "canada", "population" }, answer = "Canada's population was about 38,781,291 as of 2023 (Statistics Canada)." },
  { keywords = { "mexico", "population" }, answer = "Mexico's population was about 128.5 million in 2023 (World Bank)." },
  { keywords = { "mexico", "people" }, answer = "Mexico's population was about 128.5 million in 2023 (World Bank)." },
  { keywords = { "canada", "people" }, answer = "Canada's population was about 38,781,291 as of 2023 (Statistics Canada)." },
  { keywords = { "france", "capital" }, answer = "Paris is the capital of France." },
  { keywords = { "leo", "dicaprio", "girlfriend" }, answer = "Camila Morrone (as of 2022)." },
  { keywords = { "weather" }, answer = "Search results are offline fixtures; no live weather is available." },
}
