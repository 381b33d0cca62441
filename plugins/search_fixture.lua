-- Offline stand-in for a web search index: the Search tool looks answers up here.
return {
  { keywords = { "canada", "population" }, answer = "Canada's population was about 38,781,291 as of 2023 (Statistics Canada)." },
  { keywords = { "france", "capital" }, answer = "Paris is the capital of France." },
  { keywords = { "leo", "dicaprio", "girlfriend" }, answer = "Camila Morrone (as of 2022)." },
  { keywords = { "weather" }, answer = "Search results are offline fixtures; no live weather is available." },
}
