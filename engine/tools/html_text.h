#pragma once
// The readable text of an HTML page, for the fetch tool and document search: what a reader sees, not the markup.
// Scripts, styles and other non-text elements are dropped, block elements end lines, headings and list items keep
// a Markdown mark, character references are decoded and runs of spaces collapse. One pass, linear in the page,
// whatever it holds (a page of unclosed '<' included).
#include <string>
#include <string_view>

namespace engine::tools {

std::string html_to_text(std::string_view html);

// Whether a body looks like HTML: a text/html content type, or markup at its start.
bool looks_like_html(std::string_view content_type, std::string_view body);

}  // namespace engine::tools
