#include "engine/core/event_json.h"

#include <charconv>
#include <type_traits>
#include <utility>

#include "engine/core/json_text.h"

namespace engine {
namespace {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
concept Enum = std::is_enum_v<T>;

// A struct that lists its fields (an error, a usage, a tool call).
struct AnyVisitor {};
template <class T>
concept Record = requires(T& t, AnyVisitor& f) { T::fields(t, f); };

// Whether a field written with `if_set` holds anything.
template <class T>
bool is_set(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_same_v<T, std::string> || IsVector<T>::value) return !v.empty();
  else if constexpr (IsOptional<T>::value) return v.has_value();
  else if constexpr (std::is_same_v<T, Value>) return !v.is_null();
  else return true;
}

// What a writer leaves out, in terms of its `always`: a field not set, and one for full detail when writing less.
template <class Writer>
class WriteRules {
 public:
  explicit WriteRules(EventDetail detail) : detail_(detail) {}
  template <class T>
  void if_set(const char* key, const T& v) {
    if (is_set(v)) static_cast<Writer*>(this)->always(key, v);
  }
  template <class T>
  void full(const char* key, const T& v) {
    if (detail_ == EventDetail::Full) if_set(key, v);
  }

 protected:
  EventDetail detail_;
};

// Writes fields as JSON text, straight from the event: a trace line costs no tree.
class TextWriter : public WriteRules<TextWriter> {
 public:
  TextWriter(std::string& out, EventDetail detail, bool first) : WriteRules(detail), out_(out), first_(first) {}

  template <class T>
  void always(const char* key, const T& v) {
    if (!first_) out_ += ',';
    first_ = false;
    append_json_string(out_, key);
    out_ += ':';
    put(v);
  }

 private:
  void put(const std::string& s) { append_json_string(out_, s); }
  void put(bool b) { out_ += b ? "true" : "false"; }
  void put(long n) {
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
  }
  void put(double d) { append_json_text(out_, Value(d)); }
  void put(const Value& v) { append_json_text(out_, v); }
  template <Enum E>
  void put(E e) {
    append_json_string(out_, name_of(e));
  }
  template <class T>
  void put(const std::optional<T>& v) {
    if (v) put(*v);
    else out_ += "null";  // a kind that lists an optional field as `always`
  }
  template <class T>
  void put(const std::vector<T>& list) {
    out_ += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ',';
      put(list[i]);
    }
    out_ += ']';
  }
  template <Record R>
  void put(const R& r) {
    out_ += '{';
    TextWriter inner(out_, detail_, true);
    R::fields(r, inner);
    out_ += '}';
  }

  std::string& out_;
  bool first_;
};

// Builds the fields as a JSON object: for what sends a record on as a value (SSE, a run's events in a document).
class ValueWriter : public WriteRules<ValueWriter> {
 public:
  ValueWriter(Value& object, EventDetail detail) : WriteRules(detail), object_(object) {}

  template <class T>
  void always(const char* key, const T& v) {
    append_new_member(object_, key, value(v));
  }

 private:
  template <class T>
  Value value(const T& v) {
    if constexpr (Enum<T>) return std::string(name_of(v));
    else if constexpr (IsOptional<T>::value) return v ? value(*v) : Value();
    else if constexpr (IsVector<T>::value) {
      Value list = Value::array();
      for (const auto& item : v) list.push_back(value(item));
      return list;
    } else if constexpr (Record<T>) {
      Value inner = Value::object();
      ValueWriter writer(inner, detail_);
      T::fields(v, writer);
      return inner;
    } else {
      return Value(v);
    }
  }

  Value& object_;
};

std::optional<StoppedReason> named(std::string_view name, StoppedReason*) { return stopped_reason_named(name); }
std::optional<StepKind> named(std::string_view name, StepKind*) { return step_kind_named(name); }
std::optional<StepStatus> named(std::string_view name, StepStatus*) { return step_status_named(name); }
std::optional<ChainKind> named(std::string_view name, ChainKind*) { return chain_kind_named(name); }

// Reads fields back from a record that may hold anything: what is missing or of another type is left as it was.
class Reader {
 public:
  explicit Reader(const Value& object) : object_(object) {}

  template <class T>
  void always(const char* key, T& v) {
    if (!object_.is_object()) return;
    if (auto it = object_.find(key); it != object_.end()) read(*it, v);
  }
  template <class T>
  void if_set(const char* key, T& v) {
    always(key, v);
  }
  template <class T>
  void full(const char* key, T& v) {
    always(key, v);
  }

 private:
  static void read(const Value& j, std::string& s) {
    if (j.is_string()) s = j.get<std::string>();
  }
  static void read(const Value& j, bool& b) {
    if (j.is_boolean()) b = j.get<bool>();
  }
  static void read(const Value& j, long& n) {  // an integer only: a float cast to long may be out of its range
    if (j.is_number_integer()) n = j.get<long>();
  }
  static void read(const Value& j, double& d) {
    if (j.is_number()) d = j.get<double>();
  }
  static void read(const Value& j, Value& v) { v = j; }
  template <Enum E>
  static void read(const Value& j, E& e) {
    if (!j.is_string()) return;
    if (auto known = named(j.get_ref<const std::string&>(), static_cast<E*>(nullptr))) e = *known;
  }
  template <class T>
  static void read(const Value& j, std::optional<T>& v) {
    T inner{};
    if constexpr (Record<T>) {
      if (!j.is_object()) return;
    }
    read(j, inner);
    v = std::move(inner);
  }
  template <class T>
  static void read(const Value& j, std::vector<T>& list) {
    if (!j.is_array()) return;
    list.clear();
    for (const auto& item : j) read(item, list.emplace_back());
  }
  template <Record R>
  static void read(const Value& j, R& r) {
    Reader inner(j);
    R::fields(r, inner);
  }

  const Value& object_;
};

template <class Visit>
void visit_fields(const Event& event, Visit& visit) {
  std::visit([&](const auto& kind) { std::decay_t<decltype(kind)>::fields(kind, visit); }, event.data);
}

template <size_t... I>
Event make_event(EventType type, std::index_sequence<I...>) {
  Event event;
  ((static_cast<size_t>(type) == I ? (event.data.emplace<I>(), true) : false) || ...);
  return event;
}

}  // namespace

void append_event_fields(std::string& out, const Event& event, EventDetail detail) {
  TextWriter writer(out, detail, false);
  visit_fields(event, writer);
}

Value event_fields(const Event& event, EventDetail detail) {
  Value object = Value::object();
  ValueWriter writer(object, detail);
  visit_fields(event, writer);
  return object;
}

Value error_value(const events::ErrorInfo& error) {
  Value object = Value::object();
  ValueWriter writer(object, EventDetail::Full);
  events::ErrorInfo::fields(error, writer);
  return object;
}

Event event_from_fields(EventType type, const Value& fields) {
  Event event = make_event(type, std::make_index_sequence<std::variant_size_v<EventData>>());
  Reader reader(fields);
  std::visit([&](auto& kind) { std::decay_t<decltype(kind)>::fields(kind, reader); }, event.data);
  return event;
}

}  // namespace engine
