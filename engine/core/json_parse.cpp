#include "engine/core/json_parse.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace engine {
namespace {

// Objects keep their members in order (ordered_json), so finding a key searches them one by one. Past this many
// members, an open object gets an index by hash, so a row of a million keys is read in time linear in its size.
constexpr size_t kIndexedMembers = 16;

// Builds the Value as nlohmann's own DOM builder does, with three differences that matter for hostile or large
// input: the first container past the depth bound stops the parse at once (a hostile text costs no more than its
// first `max_depth` levels), each string is moved out of the lexer's buffer, not copied (an input of megabytes
// is then held once by the parse, beside its text, instead of twice), and a large object's keys are found by hash.
class BoundedDomParser {
 public:
  BoundedDomParser(Value& root, int max_depth) : root_(root), max_depth_(max_depth) {}

  bool null() { return add(nullptr); }
  bool boolean(bool b) { return add(b); }
  bool number_integer(Value::number_integer_t n) { return add(n); }
  bool number_unsigned(Value::number_unsigned_t n) { return add(n); }
  bool number_float(Value::number_float_t n, const std::string&) { return add(n); }
  bool string(std::string& s) { return add(taken(s)); }
  bool binary(Value::binary_t& b) { return add(std::move(b)); }

  bool start_object(std::size_t) { return enter(Value::object()); }
  bool key(std::string& k) {
    key_ = &member(stack_.back(), std::move(k));
    return true;
  }
  bool end_object() { return leave(); }
  bool start_array(std::size_t) { return enter(Value::array()); }
  bool end_array() { return leave(); }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    // nlohmann's message quotes the text it last read, which may be anything a server sent; the position is enough.
    if (why_.empty()) {
      std::string what = e.what();
      size_t start = what.find("] ");
      what = what.substr(start == std::string::npos ? 0 : start + 2);
      what = what.substr(0, what.find("; last read"));
      why_ = what.substr(0, what.find(" '"));  // "number overflow parsing '1e400'" quotes the text too
    }
    return false;
  }

  const std::string& why() const { return why_; }
  bool too_deep() const { return too_deep_; }

 private:
  // Places a value: the root, the next element of the open array, or the value of the key just read.
  template <class T>
  Value* place(T&& v) {
    if (stack_.empty()) {
      root_ = Value(std::forward<T>(v));
      return &root_;
    }
    Value& open = *stack_.back().value;
    if (open.is_array()) {
      open.push_back(Value(std::forward<T>(v)));
      return &open.back();
    }
    *key_ = Value(std::forward<T>(v));
    return key_;
  }
  template <class T>
  bool add(T&& v) {
    place(std::forward<T>(v));
    return true;
  }
  // The lexer's buffer, taken rather than copied (the lexer clears it before the next token); a large one that its
  // doubling left far bigger than its text is copied to its size instead, so the value does not keep that slack.
  static std::string taken(std::string& s) {
    if (s.size() >= (64u << 10) && s.capacity() > s.size() + s.size() / 4) return std::string(s);
    return std::move(s);
  }
  bool enter(Value container) {
    if (static_cast<int>(stack_.size()) >= max_depth_) {
      why_ = "nested deeper than " + std::to_string(max_depth_) + " levels";
      too_deep_ = true;
      return false;
    }
    stack_.push_back({place(std::move(container)), nullptr});
    return true;
  }
  bool leave() {
    stack_.pop_back();
    return true;
  }

  struct Open {
    Value* value;
    // Key hash -> member position, once the object is large; a key repeated keeps its first place and its last
    // value, as nlohmann's own builder does.
    std::unique_ptr<std::unordered_multimap<size_t, size_t>> index;
  };

  static size_t hash(std::string_view k) { return std::hash<std::string_view>{}(k); }

  Value& member(Open& open, std::string&& k) {
    auto& members = static_cast<Value::object_t::Container&>(open.value->get_ref<Value::object_t&>());
    if (!open.index) {
      for (auto& m : members)
        if (m.first == k) return m.second;
      if (members.size() < kIndexedMembers) return members.emplace_back(std::move(k), nullptr).second;
      open.index = std::make_unique<std::unordered_multimap<size_t, size_t>>();
      for (size_t i = 0; i < members.size(); ++i) open.index->emplace(hash(members[i].first), i);
    } else {
      auto [from, to] = open.index->equal_range(hash(k));
      for (auto it = from; it != to; ++it)
        if (members[it->second].first == k) return members[it->second].second;
    }
    open.index->emplace(hash(k), members.size());
    return members.emplace_back(std::move(k), nullptr).second;
  }

  Value& root_;
  std::vector<Open> stack_;  // the open containers; a pointer into a parent stays valid until the child closes
  Value* key_ = nullptr;
  int max_depth_;
  bool too_deep_ = false;
  std::string why_;
};

// A file's bytes as nlohmann's parser reads them: one at a time, through an input iterator over its buffers.
class FileChars {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  FileChars() = default;  // the end
  explicit FileChars(FileReader& reader) : reader_(&reader) { fill(); }

  const char& operator*() const { return chunk_.front(); }
  FileChars& operator++() {
    chunk_.remove_prefix(1);
    if (chunk_.empty()) fill();
    return *this;
  }
  bool operator==(const FileChars& o) const { return chunk_.empty() == o.chunk_.empty(); }
  bool operator!=(const FileChars& o) const { return !(*this == o); }

 private:
  void fill() { chunk_ = reader_->next(); }

  FileReader* reader_ = nullptr;
  std::string_view chunk_;
};

template <class Parse>
Value parsed(Parse parse, JsonError* error, int max_depth) {
  Value root;
  BoundedDomParser parser(root, max_depth);
  if (parse(parser) && parser.why().empty()) return root;
  if (error) *error = {parser.too_deep(), parser.why().empty() ? "not JSON" : parser.why()};
  return Value(Value::value_t::discarded);
}

}  // namespace

Value parse_json(std::string_view text, JsonError* error, int max_depth) {
  return parsed([&](BoundedDomParser& p) { return Value::sax_parse(text.begin(), text.end(), &p); }, error, max_depth);
}

Value parse_json_file(const std::filesystem::path& path, size_t max_bytes, Pipes pipes, JsonError* error,
                      int max_depth) {
  FileReader reader(path, max_bytes, pipes);
  return parsed([&](BoundedDomParser& p) { return Value::sax_parse(FileChars(reader), FileChars(), &p); }, error,
                max_depth);
}

int json_depth(const Value& v) {
  if (!v.is_structured()) return 0;
  // the common case, a list or dict of scalars, needs no stack
  bool flat = std::none_of(v.begin(), v.end(), [](const Value& c) { return c.is_structured(); });
  if (flat) return 1;
  int deepest = 0;
  std::vector<std::pair<const Value*, int>> todo{{&v, 0}};
  while (!todo.empty()) {
    auto [value, depth] = todo.back();
    todo.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *value) todo.emplace_back(&child, depth + 1);
  }
  return deepest;
}

}  // namespace engine
