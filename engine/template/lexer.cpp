#include "engine/template/lexer.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/utf8.h"
#include "engine/template/unicode_case.h"

namespace engine::tmpl {
namespace {

// Two- and one-character operators, longest first.
const char* const kOperators[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
                                  ">",  "=",  "(",  ")",  "[",  "]",  "{", "}", ",", ".", ":", "|"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_'; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_'; }

class Lexer {
 public:
  Lexer(const SourceText& src, const TemplateOptions& opt) : src_(src), s_(src.text()), opt_(opt) {}

  std::vector<Token> run() {
    bool strip_next_text = false;   // the previous tag ended with '-'
    bool trim_next_newline = false;  // trim_blocks after a block or comment tag
    while (pos_ < s_.size()) {
      size_t tag = find_tag(pos_);
      std::string text = s_.substr(pos_, tag - pos_);
      int text_line = line_, text_col = col_;
      advance_to(tag);
      if (strip_next_text) {
        size_t b = 0;
        while (b < text.size() && is_space(text[b])) ++b;
        text.erase(0, b);
      } else if (trim_next_newline) {
        if (text.rfind("\r\n", 0) == 0) text.erase(0, 2);
        else if (!text.empty() && text[0] == '\n') text.erase(0, 1);
      }
      strip_next_text = trim_next_newline = false;
      if (tag < s_.size()) apply_left_control(text, tag);
      if (!text.empty()) out_.push_back({TokenKind::Text, std::move(text), text_line, text_col});
      if (tag >= s_.size()) break;
      char kind = s_[tag + 1];
      bool right_strip = false;
      if (kind == '#') right_strip = lex_comment();
      else if (kind == '%' && tag_name_at(tag) == "raw") right_strip = lex_raw();
      else right_strip = lex_tag(kind);
      strip_next_text = right_strip;
      trim_next_newline = !right_strip && opt_.trim_blocks && kind != '{' && !kept_newline_;
      kept_newline_ = false;
    }
    out_.push_back({TokenKind::End, "", line_, col_});
    return std::move(out_);
  }

 private:
  size_t find_tag(size_t from) const {
    for (size_t i = from; i + 1 < s_.size(); ++i)
      if (s_[i] == '{' && (s_[i + 1] == '{' || s_[i + 1] == '%' || s_[i + 1] == '#')) return i;
    return s_.size();
  }

  // '-' after the opening strips all whitespace before the tag; lstrip_blocks strips the tag's line indent
  // unless the tag opens with '+'.
  void apply_left_control(std::string& text, size_t tag) {
    char marker = tag + 2 < s_.size() ? s_[tag + 2] : '\0';
    if (marker == '-') {
      size_t e = text.size();
      while (e > 0 && is_space(text[e - 1])) --e;
      text.resize(e);
    } else if (opt_.lstrip_blocks && s_[tag + 1] != '{' && marker != '+') {
      // Only the indent of a tag that starts its line is stripped; look at the source, not the
      // possibly already stripped text.
      size_t p = tag;
      while (p > 0 && (s_[p - 1] == ' ' || s_[p - 1] == '\t')) --p;
      if (p == 0 || s_[p - 1] == '\n') text.resize(text.size() - std::min(text.size(), tag - p));
    }
  }

  // The first word inside the block tag starting at `tag`, e.g. "raw".
  std::string tag_name_at(size_t tag) const {
    size_t p = tag + 2;
    if (p < s_.size() && (s_[p] == '-' || s_[p] == '+')) ++p;
    while (p < s_.size() && is_space(s_[p])) ++p;
    size_t b = p;
    while (p < s_.size() && is_name_char(s_[p])) ++p;
    return s_.substr(b, p - b);
  }

  // {% raw %}...{% endraw %}: the content is text, whatever tags it holds. Whitespace control applies to both tags.
  bool lex_raw() {
    int open_line = line_, open_col = col_;
    size_t open_end = s_.find("%}", pos_);
    if (open_end == std::string::npos) fail("unclosed tag: expected '%}' after 'raw'", open_line, open_col);
    bool strip_inside_start = s_[open_end - 1] == '-';
    size_t search = open_end + 2;
    for (;;) {
      size_t close = s_.find("{%", search);
      if (close == std::string::npos)
        fail("unclosed 'raw' block opened at line " + src_.position_text(open_line, open_col) +
                 ": expected '{% endraw %}' before the end",
             open_line, open_col);
      if (tag_name_at(close) != "endraw") {
        search = close + 2;
        continue;
      }
      std::string text = s_.substr(open_end + 2, close - open_end - 2);
      if (strip_inside_start) {
        size_t b = 0;
        while (b < text.size() && is_space(text[b])) ++b;
        text.erase(0, b);
      }
      if (close + 2 < s_.size() && s_[close + 2] == '-') {
        size_t e = text.size();
        while (e > 0 && is_space(text[e - 1])) --e;
        text.resize(e);
      }
      advance_to(open_end + 2);
      int text_line = line_, text_col = col_;
      size_t end = s_.find("%}", close);
      if (end == std::string::npos) fail("unclosed tag: expected '%}' after 'endraw'", line_, col_);
      bool strip_after = s_[end - 1] == '-';
      advance_to(end + 2);
      if (!text.empty()) out_.push_back({TokenKind::Text, std::move(text), text_line, text_col});
      return strip_after;
    }
  }

  void advance_to(size_t target) {
    while (pos_ < target) advance();
  }
  void advance() {
    unsigned char c = s_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if (!utf8::is_continuation(c)) {
      ++col_;
    }
  }
  bool at(const char* lit) const { return s_.compare(pos_, std::strlen(lit), lit) == 0; }

  [[noreturn]] void fail(const std::string& msg, int line, int col) {
    throw located_error(ErrorKind::TemplateSyntax, msg, src_, line, col);
  }

  bool lex_comment() {
    int l = line_, c = col_;
    advance_to(pos_ + 2);
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) advance();
    size_t end = s_.find("#}", pos_);
    if (end == std::string::npos) fail("unclosed comment: expected '#}'", l, c);
    bool strip = end > pos_ && s_[end - 1] == '-';
    advance_to(end + 2);
    return strip;
  }

  // Lexes one {{ ... }} or {% ... %}; returns whether it ended with '-' (strip the following text).
  bool lex_tag(char kind) {
    int open_line = line_, open_col = col_;
    bool is_var = kind == '{';
    out_.push_back({is_var ? TokenKind::VarBegin : TokenKind::BlockBegin, "", line_, col_});
    advance_to(pos_ + 2);
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) advance();
    const char* close = is_var ? "}}" : "%}";
    std::string brackets;  // open inside the tag, so "}}" closing a dict literal does not close the tag
    for (;;) {
      while (pos_ < s_.size() && is_space(s_[pos_])) advance();
      if (pos_ >= s_.size())
        fail(std::string("unclosed tag: expected '") + close + "' before the end of the template" +
                 (!brackets.empty() ? " (a bracket opened in the tag is never closed)" : ""),
             open_line, open_col);
      if (brackets.empty() && s_[pos_] == '-' && s_.compare(pos_ + 1, 2, close) == 0) {
        out_.push_back({is_var ? TokenKind::VarEnd : TokenKind::BlockEnd, "", line_, col_});
        advance_to(pos_ + 3);
        return true;
      }
      if (brackets.empty() && at(close)) {
        out_.push_back({is_var ? TokenKind::VarEnd : TokenKind::BlockEnd, "", line_, col_});
        advance_to(pos_ + 2);
        return false;
      }
      // "+%}" keeps the newline after the tag that trim_blocks would remove, as "{%+" keeps the indent before it.
      if (!is_var && brackets.empty() && s_[pos_] == '+' && s_.compare(pos_ + 1, 2, close) == 0) {
        out_.push_back({TokenKind::BlockEnd, "", line_, col_});
        advance_to(pos_ + 3);
        kept_newline_ = true;
        return false;
      }
      if (!is_var && brackets.empty() && at("}}")) fail("expected '%}' to close the block tag, got '}}'", line_, col_);
      lex_expression_token(brackets);
    }
  }

  void lex_expression_token(std::string& brackets) {
    int l = line_, c = col_;
    unsigned char ch = s_[pos_];
    if (ch == '\'' || ch == '"') {
      out_.push_back({TokenKind::String, lex_string(), l, c});
      return;
    }
    // Python's prefixed integers, 0x1F, 0o17, 0b101 (underscores allowed between digits); the parser reads the base.
    if (ch == '0' && pos_ + 2 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1]) &&
        std::isalnum(static_cast<unsigned char>(s_[pos_ + 2]))) {
      std::string num = s_.substr(pos_, 2);
      advance_to(pos_ + 2);
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') num += s_[pos_];
        advance();
      }
      out_.push_back({TokenKind::Integer, num, l, c});
      return;
    }
    if (std::isdigit(ch)) {
      size_t b = pos_;
      bool is_float = false;
      while (pos_ < s_.size() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '_')) advance();
      if (pos_ + 1 < s_.size() && s_[pos_] == '.' && std::isdigit((unsigned char)s_[pos_ + 1])) {
        is_float = true;
        advance();
        while (pos_ < s_.size() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '_')) advance();
      }
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        size_t save = pos_;
        int sl = line_, sc = col_;
        advance();
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) advance();
        if (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) {
          is_float = true;
          while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) advance();
        } else {
          pos_ = save, line_ = sl, col_ = sc;
        }
      }
      std::string num;
      for (size_t i = b; i < pos_; ++i)
        if (s_[i] != '_') num += s_[i];
      out_.push_back({is_float ? TokenKind::Float : TokenKind::Integer, num, l, c});
      return;
    }
    if (is_name_start(ch)) {
      size_t b = pos_;
      while (pos_ < s_.size() && is_name_char(s_[pos_])) advance();
      out_.push_back({TokenKind::Name, s_.substr(b, pos_ - b), l, c});
      return;
    }
    for (const char* op : kOperators) {
      if (at(op)) {
        if (op[0] == '(' || op[0] == '[' || op[0] == '{') brackets += op[0];
        if (op[0] == ')' || op[0] == ']' || op[0] == '}') {
          char want = op[0] == ')' ? '(' : op[0] == ']' ? '[' : '{';
          if (brackets.empty() || brackets.back() != want)
            fail(std::string("unexpected '") + op[0] + "'" +
                     (brackets.empty() ? "" : std::string(", expected '") + closer(brackets.back()) + "'"),
                 l, c);
          brackets.pop_back();
        }
        out_.push_back({TokenKind::Operator, op, l, c});
        advance_to(pos_ + std::strlen(op));
        return;
      }
    }
    std::string bad(1, static_cast<char>(ch));
    if (ch >= 0x80) bad = "non-ASCII character";
    fail("unexpected character '" + bad + "' in expression", l, c);
  }

  // After a backslash in a string literal: Python's escapes (Jinja2 reads literals as Python does). An unknown one
  // is kept as written; a \x, \u or \U with too few hex digits is an error, as in Python.
  void escape(std::string& out, int l, int c) {
    char e = s_[pos_];
    auto hex = [&](int digits) {
      uint32_t cp = 0;
      for (int i = 1; i <= digits; ++i) {
        char h = pos_ + i < s_.size() ? s_[pos_ + i] : '\0';
        if (!std::isxdigit(static_cast<unsigned char>(h)))
          fail(std::string("truncated \\") + e + " escape in a string literal: it takes " + std::to_string(digits) +
                   " hex digits",
               l, c);
        cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                                                           : (std::tolower(h) - 'a' + 10));
      }
      for (int i = 0; i < digits; ++i) advance();
      return cp;
    };
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case '\n': break;  // a backslash-newline continues the string
      case 'x': append_code_point(out, hex(2), l, c); break;
      case 'u': append_code_point(out, hex(4), l, c); break;
      case 'U': append_code_point(out, hex(8), l, c); break;
      case 'N': fail("\\N{...} escapes (characters by name) are not supported; write the character itself", l, c);
      default:
        if (e >= '0' && e <= '7') {  // up to three octal digits
          uint32_t cp = static_cast<uint32_t>(e - '0');
          for (int i = 0; i < 2 && pos_ + 1 < s_.size() && s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '7'; ++i) {
            advance();
            cp = cp * 8 + static_cast<uint32_t>(s_[pos_] - '0');
          }
          append_code_point(out, cp, l, c);
        } else {
          out += '\\', out += e;  // Python keeps unknown escapes as written
        }
    }
    advance();
  }

  void append_code_point(std::string& out, uint32_t cp, int l, int c) {
    if (cp > 0x10FFFF) fail("a \\U escape past U+10FFFF in a string literal", l, c);
    if (cp >= 0xD800 && cp <= 0xDFFF) fail("a surrogate code point in a string literal cannot be written as UTF-8", l, c);
    utf8::append(out, cp);
  }

  static char closer(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

  std::string lex_string() {
    int l = line_, c = col_;
    char quote = s_[pos_];
    advance();
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      char ch = s_[pos_];
      if (ch == '\\' && pos_ + 1 < s_.size()) {
        advance();
        escape(out, l, c);
        continue;
      }
      out += ch;
      advance();
    }
    if (pos_ >= s_.size()) fail("unterminated string literal", l, c);
    advance();
    return out;
  }

  const SourceText& src_;
  const std::string& s_;
  const TemplateOptions& opt_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  bool kept_newline_ = false;  // the tag just lexed ended with "+%}"
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> tokenize(const SourceText& source, const TemplateOptions& options) {
  return Lexer(source, options).run();
}

}  // namespace engine::tmpl
