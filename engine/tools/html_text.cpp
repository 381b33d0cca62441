#include "engine/tools/html_text.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/core/text.h"

namespace engine::tools {
namespace {

// Elements whose content is not text a reader sees.
bool skipped(std::string_view tag) {
  for (const char* t : {"script", "style", "noscript", "template", "svg", "iframe", "object", "head"})
    if (tag == t) return true;
  return false;
}

bool block(std::string_view tag) {
  for (const char* t : {"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer",
                        "nav", "main", "aside", "pre", "blockquote", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd",
                        "figure", "figcaption", "form", "title", "body", "html"})
    if (tag == t) return true;
  return false;
}

// The named references pages use beside XML's five (which decode_xml_entities knows).
void decode_more(std::string& text) {
  static const std::pair<const char*, const char*> kNamed[] = {
      {"&nbsp;", " "},       {"&mdash;", "\xE2\x80\x94"}, {"&ndash;", "\xE2\x80\x93"}, {"&hellip;", "\xE2\x80\xA6"},
      {"&copy;", "\xC2\xA9"}, {"&reg;", "\xC2\xAE"},       {"&rsquo;", "\xE2\x80\x99"}, {"&lsquo;", "\xE2\x80\x98"},
      {"&rdquo;", "\xE2\x80\x9D"}, {"&ldquo;", "\xE2\x80\x9C"}, {"&euro;", "\xE2\x82\xAC"}, {"&middot;", "\xC2\xB7"}};
  if (text.find('&') == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '&')
      for (const auto& [name, value] : kNamed) {
        size_t n = std::strlen(name);
        if (text.compare(i, n, name) == 0) {
          out += value;
          i += n;
          replaced = true;
          break;
        }
      }
    if (!replaced) out += text[i++];
  }
  text = decode_xml_entities(out);
}

class TextBuilder {
 public:
  void text(std::string_view raw) {
    std::string decoded(raw);
    decode_more(decoded);
    for (char c : decoded) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        space_ = !out_.empty() && out_.back() != '\n';
      } else {
        if (space_) out_ += ' ';
        space_ = false;
        out_ += c;
      }
    }
  }
  // Ends the line; `blank` leaves an empty line after it (a paragraph), unless one is there.
  void line_break(bool blank, std::string_view mark = "") {
    space_ = false;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    size_t newlines = 0;
    for (size_t i = out_.size(); i > 0 && out_[i - 1] == '\n'; --i) ++newlines;
    if (!out_.empty() && newlines < (blank ? 2u : 1u)) out_.append((blank ? 2u : 1u) - newlines, '\n');
    out_ += mark;
  }
  std::string finish() {
    while (!out_.empty() && (out_.back() == '\n' || out_.back() == ' ')) out_.pop_back();
    return std::move(out_);
  }

 private:
  std::string out_;
  bool space_ = false;
};

}  // namespace

bool looks_like_html(std::string_view content_type, std::string_view body) {
  if (content_type.find("html") != std::string_view::npos) return true;
  size_t i = 0;
  while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  std::string head;
  for (size_t j = i; j < body.size() && head.size() < 15; ++j) head += static_cast<char>(std::tolower(static_cast<unsigned char>(body[j])));
  return head.rfind("<!doctype html", 0) == 0 || head.rfind("<html", 0) == 0;
}

std::string html_to_text(std::string_view html) {
  // Lowercased once, so finding an element's end never rescans: the whole pass stays linear.
  std::string lower(html);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  TextBuilder out;
  size_t last_close = lower.rfind('>');
  size_t i = 0;
  while (i < html.size()) {
    size_t lt = html.find('<', i);
    if (lt == std::string_view::npos || last_close == std::string::npos || lt > last_close) {
      out.text(html.substr(i));
      break;
    }
    out.text(html.substr(i, lt - i));
    if (lower.compare(lt, 4, "<!--") == 0) {
      size_t end = lower.find("-->", lt + 4);
      i = end == std::string::npos ? html.size() : end + 3;
      continue;
    }
    size_t gt = lower.find('>', lt);  // found: lt < last_close
    bool closing = html[lt + 1] == '/';
    size_t name_start = lt + 1 + (closing ? 1 : 0);
    size_t name_end = name_start;
    while (name_end < gt && std::isalnum(static_cast<unsigned char>(lower[name_end]))) ++name_end;
    std::string_view tag(lower.data() + name_start, name_end - name_start);
    i = gt + 1;
    if (tag.empty()) continue;  // <!doctype>, <?xml?>, a stray '<'
    if (!closing && skipped(tag) && lower[gt - 1] != '/') {
      std::string end_tag = "</" + std::string(tag);
      size_t end = lower.find(end_tag, i);
      size_t close = end == std::string::npos ? std::string::npos : lower.find('>', end);
      i = close == std::string::npos ? html.size() : close + 1;
      if (tag == "head") out.line_break(true);
      continue;
    }
    if (!closing && tag.size() == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6') {
      out.line_break(true, std::string(static_cast<size_t>(tag[1] - '0'), '#') + " ");
    } else if (tag == "li" || tag == "br" || tag == "tr" || tag == "dt" || tag == "dd") {
      if (!closing) out.line_break(false, tag == "li" ? "- " : "");
    } else if (block(tag)) {
      out.line_break(true);
    } else if (tag == "td" || tag == "th") {
      out.text(" ");
    }
  }
  return out.finish();
}

}  // namespace engine::tools
