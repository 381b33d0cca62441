#pragma once
// A span as OpenTelemetry has it: one timed operation of a run (the run, a step, an agent, a model call, a tool
// call) in a tree of them, named and attributed as the GenAI semantic conventions say (docs/observability.md).
// Built on the run's thread for every model and tool call, so it is kept light: ids in place, attributes keyed by
// the conventions' names as literals, values without JSON's nodes.
#include <array>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/core/value.h"

namespace engine::trace {

enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

// An id as W3C Trace Context and OTLP's JSON write it, N lowercase hex digits, held in place; none until set.
template <size_t N>
class HexId {
 public:
  HexId() = default;
  HexId(std::string_view hex) { *this = hex; }  // NOLINT: ids are read from text
  HexId& operator=(std::string_view hex) {  // N digits, or anything else for none
    digits_.fill('\0');
    if (hex.size() == N) std::copy(hex.begin(), hex.end(), digits_.begin());
    return *this;
  }
  char* data() { return digits_.data(); }  // N digits to fill
  bool empty() const { return digits_[0] == '\0'; }
  size_t size() const { return empty() ? 0 : N; }
  std::string_view view() const { return empty() ? std::string_view() : std::string_view(digits_.data(), N); }
  std::string str() const { return std::string(view()); }
  friend bool operator==(const HexId& a, const HexId& b) { return a.digits_ == b.digits_; }
  friend bool operator==(const HexId& a, std::string_view b) { return a.view() == b; }

 private:
  std::array<char, N> digits_{};
};
using TraceId = HexId<32>;
using SpanId = HexId<16>;

// An attribute's value as OTLP carries one: text, an integer, a number, a flag, or a list of texts.
using AttributeValue = std::variant<std::string, int64_t, double, bool, std::vector<std::string>>;

// A span's attributes, in the order set. Names are the conventions' literals, never copied.
class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const char*, Value>> items);  // for tests and fixed sets

  void set(const char* name, AttributeValue value);
  void set_json(const char* name, const Value& value);  // a string, number, bool or list of strings
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  const AttributeValue* find(std::string_view name) const;
  // The value as JSON, null when not set: for reading a span back (tests, the store).
  Value operator[](std::string_view name) const;

  struct Item {
    const char* name;
    AttributeValue value;
  };
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }
  std::vector<Item>::iterator begin() { return items_.begin(); }
  std::vector<Item>::iterator end() { return items_.end(); }
  size_t size() const { return items_.size(); }

 private:
  std::vector<Item> items_;
};

Value attribute_json(const AttributeValue& value);

struct Span {
  TraceId trace_id;
  SpanId span_id;
  SpanId parent_id;            // none for the root
  bool remote_parent = false;  // the parent is the caller's span (a traceparent), in another process
  std::string name;            // "invoke_workflow triage", "chat gpt-4o", "execute_tool search", a step's name
  SpanKind kind = SpanKind::Internal;
  std::chrono::steady_clock::time_point start, end;
  Attributes attributes;
  bool failed = false;
  std::string status_message;  // why it failed
};

}  // namespace engine::trace
