#pragma once
// A compiled PCRE2 regex, immutable and shareable across threads. Accepts Python syntax ((?P<name>...), (?s),
// \Z) because users bring LangChain's regexes; bounded by match and depth limits because LLM output is untrusted.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/limits.h"

namespace engine::parse {

struct RegexOptions {
  bool dotall = false;
  bool multiline = false;
  bool ignore_case = false;
  unsigned match_limit = limits::kRegexMatchSteps;
  unsigned depth_limit = limits::kRegexDepth;
};

struct RegexMatch {
  size_t start = 0, end = 0;                         // byte offsets of the whole match
  std::vector<std::optional<std::string_view>> groups;  // [0] is the whole match; unset groups are nullopt
  // Group names by number ("" for unnamed), shared with the Regex so a match may outlive it.
  std::shared_ptr<const std::vector<std::string>> names;

  std::optional<std::string_view> group(std::string_view name) const;
};

class Regex {
 public:
  // Throws Error "regex.invalid" whose message names the offset of the problem in the pattern.
  static Regex compile(std::string_view pattern, RegexOptions options = {});

  // The first match at or after `from`, or nullopt. Throws Error "regex.limit" when the limits stop the search.
  // The match's views point into `subject`.
  std::optional<RegexMatch> search(std::string_view subject, size_t from = 0) const;
  // For a subject still growing: where the first match could begin that is whole, or that more text appended could
  // complete (PCRE2's hard partial matching); nullopt when no text appended could make one. Throws as search does.
  std::optional<size_t> match_or_partial_start(std::string_view subject) const;

  const std::string& pattern() const;
  const std::vector<std::string>& group_names() const;  // by group number; [0] is ""
  bool has_group(std::string_view name) const;

 private:
  struct Impl;
  explicit Regex(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Python's regex spelling turned into PCRE2's where they differ (\Z). Exposed for tests.
std::string python_to_pcre2(std::string_view pattern);

}  // namespace engine::parse
