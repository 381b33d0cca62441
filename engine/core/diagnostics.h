#pragma once
// The problems a check finds when it goes on past the first, as a compiler does: `engine validate` hands one to the
// loader and the builder, which note each problem of an entry and carry on with the next. Without one (a run), the
// first problem is thrown as it always was.
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/core/error.h"

namespace engine {

class Diagnostics {
 public:
  explicit Diagnostics(size_t max_errors) : max_(max_errors) {}

  // Notes a problem; past the limit it is counted but not kept.
  void note(const Error& e) {
    ++count_;
    if (errors_.size() < max_) errors_.push_back(e);
  }
  // Every problem noted, those past the limit too: a reader compares it before and after a block.
  size_t count() const { return count_; }
  const std::vector<Error>& errors() const { return errors_; }
  bool empty() const { return errors_.empty(); }

  // A whole section of the file (its inputs, tools, steps ...) could not be read: what the builder would find is
  // about another workflow than the one written, so it is not asked.
  void section_unread() { every_section_read_ = false; }
  bool every_section_read() const { return every_section_read_; }

  // A tool or a step left out for its own problem: what names it is not a problem of the file. An empty name (a
  // tool whose name was to come from its script or server) stands for any.
  enum class Entry { tool, step };
  // A set, not a list: a hostile file may leave out tens of thousands of tools and name each of them again.
  void left_out(Entry kind, std::string name) {
    LeftOut& of = left_out_[static_cast<size_t>(kind)];
    if (name.empty()) of.any = true;
    else of.names.insert(std::move(name));
  }
  bool was_left_out(Entry kind, const std::string& name) const {
    const LeftOut& of = left_out_[static_cast<size_t>(kind)];
    return of.any || of.names.count(name) > 0;
  }

 private:
  size_t max_;
  size_t count_ = 0;
  bool every_section_read_ = true;
  std::vector<Error> errors_;
  struct LeftOut {
    bool any = false;
    std::unordered_set<std::string> names;
  };
  LeftOut left_out_[2];  // by Entry
};

// Runs `check`. With diagnostics, a problem it throws is noted and false returned; without, it is thrown on.
template <class F>
bool noted(Diagnostics* found, F&& check) {
  if (!found) {
    check();
    return true;
  }
  try {
    check();
    return true;
  } catch (const Error& e) {
    found->note(e);
    return false;
  }
}

}  // namespace engine
