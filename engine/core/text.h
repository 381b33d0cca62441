#pragma once
// Small string helpers shared by every module.
#include <optional>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);

// The closest candidate within a small edit distance, for "did you mean 'stop'?" hints.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// `s` with XML's character references decoded: the five named ones (&lt; &gt; &amp; &quot; &apos;) and numeric
// ones (&#60; &#x3c;) of a valid code point; anything else, a bare & included, is left as it is.
std::string decode_xml_entities(std::string_view s);

// Quotes a string for an error message: printable, shortened to `max` characters with "...". Control bytes (ESC
// and the like, which a hostile server could use to drive the terminal) are written as escapes: "\x1b".
std::string quote_excerpt(std::string_view s, size_t max = 80);
// The same without the quotes.
std::string printable_excerpt(std::string_view s, size_t max = 80);

// Text for a terminal: control bytes other than newline and tab (ESC, CR, C1 controls such as CSI) written as
// escapes, so a model's answer, a tool's output or a server's message cannot move the cursor, retitle the window
// or write the clipboard. Text without them is returned as it is.
std::string terminal_safe(std::string_view s);

std::string join(const std::vector<std::string>& parts, std::string_view sep);

// The insides of the ``` fences in a model's text, trimmed, in order: the opening line (with its language tag, such
// as json) is dropped, and an unclosed fence runs to the end. One pass over the text.
std::vector<std::string_view> fenced_blocks(std::string_view text);
// The inside of the first ``` fence, or the whole text, trimmed, when there is none: where a model's JSON answer is.
std::string_view unfenced(std::string_view text);

}  // namespace engine
