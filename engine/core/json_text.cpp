#include "engine/core/json_text.h"

#include "engine/core/utf8.h"

namespace engine {
// nlohmann's serializer decodes every byte through a UTF-8 state machine; prompts are kilobytes of mostly plain
// text, so runs that need no escaping are copied whole. For valid UTF-8 the output is byte for byte what dump()
// writes; invalid input gets one U+FFFD per byte that starts no character.
void append_json_string(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plain = 0;  // start of the run not yet copied
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t n = utf8::sequence_length(s, i)) {
        i += n;
        continue;
      }
    }
    out.append(s.data() + plain, i - plain);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out += "\xEF\xBF\xBD";  // a byte that starts no valid character
        }
    }
    plain = ++i;
  }
  out.append(s.data() + plain, s.size() - plain);
  out.push_back('"');
}

void append_json_text(std::string& out, const Value& v) {
  switch (v.type()) {
    case Value::value_t::string:
      append_json_string(out, v.get_ref<const std::string&>());
      return;
    case Value::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, item] : v.items()) {
        if (!first) out.push_back(',');
        first = false;
        append_json_string(out, k);
        out.push_back(':');
        append_json_text(out, item);
      }
      out.push_back('}');
      return;
    }
    case Value::value_t::array: {
      out.push_back('[');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        append_json_text(out, v[i]);
      }
      out.push_back(']');
      return;
    }
    default:
      out += v.dump();  // numbers, booleans, null: nlohmann's own formatting
  }
}

std::string to_json_text(const Value& v) {
  std::string out;
  append_json_text(out, v);
  return out;
}

}  // namespace engine
