#include "engine/core/json_parse.h"

#include <algorithm>
#include <vector>

namespace engine {
namespace {

// nlohmann's own DOM builder, told to stop at the first container past the bound: the parse then ends at once, so
// a hostile text costs no more than its first `max_depth` levels.
class BoundedDomParser : public nlohmann::detail::json_sax_dom_parser<Value> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<Value>;
  BoundedDomParser(Value& root, int max_depth) : Base(root, false), max_depth_(max_depth) {}

  bool start_object(std::size_t n) { return enter() && Base::start_object(n); }
  bool end_object() { return --depth_, Base::end_object(); }
  bool start_array(std::size_t n) { return enter() && Base::start_array(n); }
  bool end_array() { return --depth_, Base::end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    // nlohmann's message quotes the text it last read, which may be anything a server sent; the position is enough.
    if (why_.empty()) {
      std::string what = e.what();
      size_t start = what.find("] ");
      what = what.substr(start == std::string::npos ? 0 : start + 2);
      what = what.substr(0, what.find("; last read"));
      why_ = what.substr(0, what.find(" '"));  // "number overflow parsing '1e400'" quotes the text too
    }
    return Base::parse_error(position, token, e);
  }

  const std::string& why() const { return why_; }
  bool too_deep() const { return too_deep_; }

 private:
  bool enter() {
    if (++depth_ <= max_depth_) return true;
    why_ = "nested deeper than " + std::to_string(max_depth_) + " levels";
    too_deep_ = true;
    return false;
  }

  int depth_ = 0;
  int max_depth_;
  bool too_deep_ = false;
  std::string why_;
};

}  // namespace

Value parse_json(std::string_view text, JsonError* error, int max_depth) {
  Value root;
  BoundedDomParser parser(root, max_depth);
  if (Value::sax_parse(text.begin(), text.end(), &parser) && parser.why().empty()) return root;
  if (error) *error = {parser.too_deep(), parser.why().empty() ? "not JSON" : parser.why()};
  return Value(Value::value_t::discarded);
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
