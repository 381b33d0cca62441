#include "engine/server/tokens.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/text.h"

namespace engine::server {
namespace {

// Every byte of both looked at, whatever differs first.
bool same_secret(std::string_view given, std::string_view token) {
  unsigned char diff = given.size() == token.size() ? 0 : 1;
  size_t n = std::max(given.size(), token.size());
  for (size_t i = 0; i < n; ++i) {
    unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    unsigned char b = i < token.size() ? static_cast<unsigned char>(token[i]) : 0;
    diff |= static_cast<unsigned char>(a ^ b);
  }
  return diff == 0;
}

// Calls `piece` with each part of `text` between `sep`s.
template <class F>
void for_each_piece(std::string_view text, char sep, F piece) {
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    piece(text.substr(start, end - start));
    start = end + 1;
  }
}

bool is_bearer(std::string_view auth) {
  if (auth.size() < 7 || auth[6] != ' ') return false;
  std::string scheme(auth.substr(0, 6));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  return scheme == "bearer";
}

void add_token(std::vector<std::string>& out, std::string_view text, const std::string& where) {
  std::string_view token = trim(text);
  if (token.empty() || token.front() == '#') return;
  if (token.size() < 16 || token.find_first_of(" \t") != std::string_view::npos)
    throw Error(ErrorKind::ServeBadToken, "a token in " + where + " is shorter than 16 bytes or holds a space; use a long "
                                   "random one, such as `openssl rand -hex 32` prints");
  out.emplace_back(token);
}

}  // namespace

TokenCheck::TokenCheck(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {}

bool TokenCheck::allows(const HttpRequest& request) const {
  if (tokens_.empty()) return true;
  const std::string* auth = request.header("authorization");
  if (!auth || !is_bearer(*auth)) return false;
  std::string_view given = trim(std::string_view(*auth).substr(7));
  bool found = false;
  for (const std::string& token : tokens_) found = same_secret(given, token) | found;
  return found;
}

std::vector<std::string> TokenCheck::read(const std::string& file, const char* env_value) {
  std::vector<std::string> out;
  if (!file.empty()) {
    std::string text = read_file(file, size_t{1} << 20);
    for_each_piece(text, '\n', [&](std::string_view line) { add_token(out, line, file); });
  }
  if (env_value)
    for_each_piece(env_value, ',', [&](std::string_view piece) { add_token(out, piece, "ENGINE_SERVE_TOKENS"); });
  return out;
}

}  // namespace engine::server
