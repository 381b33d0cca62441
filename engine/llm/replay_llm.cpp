#include "engine/llm/replay_llm.h"

#include <map>
#include <mutex>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::llm {
namespace {

// A run's count of the answers served for each request.
struct Served {
  std::mutex mutex;
  std::map<std::string, size_t> by_key;
};

std::string canonical(const Value& request) { return to_json_text(request); }

// A request as lines a diff can read: each line of a prompt or message on its own, other fields whole.
void flatten(const Value& v, const std::string& path, std::vector<std::string>& out) {
  if (v.is_string()) {
    std::string_view s = v.get_ref<const std::string&>();
    size_t start = 0;
    do {
      size_t nl = s.find('\n', start);
      std::string_view line = s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      out.push_back(path + "| " + std::string(line));
      start = nl == std::string_view::npos ? s.size() + 1 : nl + 1;
    } while (start <= s.size());
  } else if (v.is_object()) {
    for (const auto& [k, item] : v.items()) flatten(item, path.empty() ? k : path + "." + k, out);
  } else if (v.is_array() && !v.empty() && (v[0].is_object())) {
    for (size_t i = 0; i < v.size(); ++i) flatten(v[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out.push_back(path + ": " + to_json_text(v));
  }
}

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::string request_diff(const Value& recorded, const Value& actual, size_t max_lines) {
  std::vector<std::string> a, b;
  flatten(recorded, "", a);
  flatten(actual, "", b);
  // A longest-common-subsequence table; requests are a few hundred lines at most.
  size_t n = a.size(), m = b.size();
  std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Line {
    char mark;
    const std::string* text;
  };
  std::vector<Line> script;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) script.push_back({' ', &a[i++]}), ++j;
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) script.push_back({'-', &a[i++]});
    else script.push_back({'+', &b[j++]});
  }
  std::vector<std::string> out;
  for (size_t k = 0; k < script.size() && out.size() < max_lines; ++k) {
    bool near_change = false;
    for (size_t d = (k > 0 ? k - 1 : 0); d <= k + 1 && d < script.size(); ++d) near_change |= script[d].mark != ' ';
    if (!near_change) continue;
    out.push_back(std::string(1, script[k].mark) + " " + *script[k].text);
  }
  if (out.size() == max_lines) out.push_back("  ...");
  return join(out, "\n");
}

ReplayLlm::ReplayLlm(const std::string& file) : file_(file) {
  std::string text;
  try {
    text = read_file(file, limits::kRecordingBytes);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::IoTooLarge) throw;
    throw Error(ErrorKind::IoNotFound, "cannot read the recording '" + file + "'");
  }
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (trim(line).empty()) continue;
    auto fail = [&](const std::string& why) {
      return Error(ErrorKind::LlmBadRecording, why, SourceLoc{file, number, 1});
    };
    JsonError why{false, "not an object"};
    Value v = parse_json(line, &why);
    if (v.is_discarded() || !v.is_object()) throw fail("a recording line must be a JSON object (" + why.message + ")");
    if (!v.contains("request") || !v["request"].is_object()) throw fail("a recording line needs a 'request' object");
    if (!v.contains("response")) throw fail("a recording line needs a 'response' object");
    Entry e;
    e.request = v["request"];
    e.key = canonical(e.request);
    try {
      e.response = response_from_json(v["response"]);
    } catch (const Error& err) {
      throw fail(err.message());
    }
    e.line = number;
    by_key_[e.key].push_back(entries_.size());
    entries_.push_back(std::move(e));
  }
  if (entries_.empty()) throw Error(ErrorKind::LlmBadRecording, "the recording '" + file + "' holds no requests");
}

LlmResponse ReplayLlm::complete(const LlmRequest& request) const {
  Value actual = request_to_json(request);
  std::string key = canonical(actual);
  auto it = by_key_.find(key);
  if (it == by_key_.end()) {
    const Entry* closest = &entries_[0];
    size_t best = 0;
    for (const auto& e : entries_)
      if (size_t p = common_prefix(e.key, key); p > best) best = p, closest = &e;
    throw Error(ErrorKind::LlmReplayMiss, "replay: call " + std::to_string(request.call_index + 1) + " sends a request that " +
                                       file_ + " does not hold (" + std::to_string(entries_.size()) +
                                       " recorded); against the closest, on line " + std::to_string(closest->line) +
                                       " (- recorded, + sent):\n" + request_diff(closest->request, actual));
  }
  // Identical requests of one run get their recorded answers in order; past the last, the last one again.
  size_t n = 0;
  if (request.run_state) {
    auto& served = request.run_state->of<Served>(this);
    std::lock_guard<std::mutex> lock(served.mutex);
    n = served.by_key[key]++;
  }
  size_t index = it->second[std::min(n, it->second.size() - 1)];
  LlmResponse r = entries_[index].response;
  if (request.stream && request.events && !r.text.empty())
    request.events->emit(Event{events::LlmToken{r.text}});
  return r;
}

}  // namespace engine::llm
