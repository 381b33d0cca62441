#define PCRE2_CODE_UNIT_WIDTH 8
#include "engine/parse/regex.h"

#include <pcre2.h>

#include "engine/core/error.h"

namespace engine::parse {

struct Regex::Impl {
  std::string pattern;
  std::vector<std::string> names;
  std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)> code{nullptr, pcre2_code_free};
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context{nullptr,
                                                                                      pcre2_match_context_free};
};

namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  return n < 0 ? "error " + std::to_string(code) : std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
}

// The JIT's stack, one per thread and made on its first match. Without one, pcre2 takes 32 KB of the machine
// stack, which for a batch's runs is a fiber's: a thousand fibers in flight would each touch a page more than the
// 16 KB a run otherwise uses (core/fiber.cpp), and a pattern that backtracks deeper than 32 KB fell back to the
// interpreter, whose depth limit gives up on a few thousand repetitions of an alternation. A match never leaves
// its thread (no callouts, no fiber switch), so a thread's stack serves one match at a time.
class ThreadJitStack {
 public:
  static constexpr size_t kStart = 32 << 10;
  static constexpr size_t kMax = 1 << 20;  // reserved, not touched: only the frames a match pushes become memory
  ThreadJitStack() : stack_(pcre2_jit_stack_create(kStart, kMax, nullptr)) {}
  ~ThreadJitStack() { pcre2_jit_stack_free(stack_); }  // accepts null
  ThreadJitStack(const ThreadJitStack&) = delete;
  ThreadJitStack& operator=(const ThreadJitStack&) = delete;
  pcre2_jit_stack* get() const { return stack_; }

 private:
  pcre2_jit_stack* stack_;
};

// pcre2's callback at the start of each JIT match; null (the stack could not be made) means its 32 KB default.
pcre2_jit_stack* thread_jit_stack(void*) {
  thread_local ThreadJitStack stack;
  return stack.get();
}

struct MatchData {
  explicit MatchData(const pcre2_code* code) : p(pcre2_match_data_create_from_pattern(code, nullptr)) {}
  ~MatchData() { pcre2_match_data_free(p); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* p;
};

}  // namespace

std::string python_to_pcre2(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size()) {
      // Python's \Z is an absolute end, which PCRE2 spells \z (PCRE2's \Z also matches before a final newline).
      out += p[i + 1] == 'Z' ? "\\z" : std::string{p[i], p[i + 1]};
      ++i;
      continue;
    }
    out += p[i];
  }
  return out;
}

std::optional<std::string_view> RegexMatch::group(std::string_view name) const {
  if (!names) return std::nullopt;
  for (size_t i = 0; i < names->size() && i < groups.size(); ++i)
    if ((*names)[i] == name) return groups[i];
  return std::nullopt;
}

Regex Regex::compile(std::string_view pattern, RegexOptions options) {
  auto impl = std::make_shared<Impl>();
  impl->pattern = std::string(pattern);
  std::string translated = python_to_pcre2(pattern);
  // UCP gives \w, \d and \s their Unicode meaning, as Python 3 has for str patterns; MATCH_INVALID_UTF lets a
  // model's broken UTF-8 be searched instead of failing the run.
  uint32_t flags = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
  if (options.dotall) flags |= PCRE2_DOTALL;
  if (options.multiline) flags |= PCRE2_MULTILINE;
  if (options.ignore_case) flags |= PCRE2_CASELESS;
  int err = 0;
  PCRE2_SIZE offset = 0;
  impl->code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(), flags, &err,
                                 &offset, nullptr));
  if (!impl->code)
    throw Error(ErrorKind::RegexInvalid, "invalid regex: " + pcre2_message(err) + " at offset " + std::to_string(offset));
  pcre2_jit_compile(impl->code.get(), PCRE2_JIT_COMPLETE);  // without JIT support the interpreter still works

  impl->context.reset(pcre2_match_context_create(nullptr));
  pcre2_set_match_limit(impl->context.get(), options.match_limit);
  pcre2_set_depth_limit(impl->context.get(), options.depth_limit);
  pcre2_jit_stack_assign(impl->context.get(), thread_jit_stack, nullptr);

  uint32_t count = 0, name_count = 0, entry_size = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(impl->code.get(), PCRE2_INFO_CAPTURECOUNT, &count);
  pcre2_pattern_info(impl->code.get(), PCRE2_INFO_NAMECOUNT, &name_count);
  pcre2_pattern_info(impl->code.get(), PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(impl->code.get(), PCRE2_INFO_NAMETABLE, &table);
  impl->names.assign(count + 1, "");
  for (uint32_t i = 0; i < name_count; ++i) {
    const unsigned char* entry = table + i * entry_size;
    unsigned n = (entry[0] << 8) | entry[1];
    if (n < impl->names.size()) impl->names[n] = reinterpret_cast<const char*>(entry + 2);
  }
  return Regex(std::move(impl));
}

namespace {

// pcre2_match over the subject, once more without JIT when the JIT stack is too small; an Error for the limits.
int run_match(const pcre2_code* code, pcre2_match_context* context, std::string_view subject, size_t from,
              uint32_t options, pcre2_match_data* md) {
  auto run = [&](uint32_t opts) {
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), from, opts, md, context);
  };
  int rc = run(options);
  // A pattern can backtrack past even the thread's JIT stack; the interpreter keeps its frames on the heap.
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT) rc = run(options | PCRE2_NO_JIT);
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
      rc == PCRE2_ERROR_JIT_STACKLIMIT)
    throw Error(ErrorKind::RegexLimit, "regex gave up on a " + std::to_string(subject.size()) +
                                   "-byte text: " + pcre2_message(rc) + " (the pattern backtracks too much)");
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH && rc != PCRE2_ERROR_PARTIAL)
    throw Error(ErrorKind::RegexMatchFailed, "regex match failed: " + pcre2_message(rc));
  return rc;
}

}  // namespace

std::optional<RegexMatch> Regex::search(std::string_view subject, size_t from) const {
  MatchData md(impl_->code.get());
  int rc = run_match(impl_->code.get(), impl_->context.get(), subject, from, 0, md.p);
  if (rc == PCRE2_ERROR_NOMATCH) return std::nullopt;

  RegexMatch m;
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.p);
  m.start = ov[0];
  m.end = ov[1];
  m.names = std::shared_ptr<const std::vector<std::string>>(impl_, &impl_->names);
  m.groups.resize(impl_->names.size());
  for (size_t i = 0; i < m.groups.size() && i < static_cast<size_t>(rc); ++i)
    if (ov[2 * i] != PCRE2_UNSET) m.groups[i] = subject.substr(ov[2 * i], ov[2 * i + 1] - ov[2 * i]);
  return m;
}

std::optional<size_t> Regex::match_or_partial_start(std::string_view subject) const {
  MatchData md(impl_->code.get());
  int rc = run_match(impl_->code.get(), impl_->context.get(), subject, 0, PCRE2_PARTIAL_HARD, md.p);
  if (rc == PCRE2_ERROR_NOMATCH) return std::nullopt;
  return pcre2_get_ovector_pointer(md.p)[0];
}

const std::string& Regex::pattern() const { return impl_->pattern; }
const std::vector<std::string>& Regex::group_names() const { return impl_->names; }
bool Regex::has_group(std::string_view name) const {
  for (const auto& n : impl_->names)
    if (n == name) return true;
  return false;
}

}  // namespace engine::parse
