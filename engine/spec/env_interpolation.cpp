#include "engine/spec/env_interpolation.h"

#include <cctype>
#include <cstdlib>

#include "engine/core/error.h"

namespace engine::spec {

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::string interpolate_env(const std::string& text, const EnvLookup& env) {
  if (text.find('$') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 2;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i];
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string::npos) throw Error(ErrorKind::SpecEnvSyntax, "'${' without a closing '}' (write $${ for a literal ${)");
    std::string body = text.substr(i + 2, close - i - 2);
    std::optional<std::string> dflt;
    size_t sep = body.find(":-");
    std::string name = body.substr(0, sep);
    if (sep != std::string::npos) dflt = body.substr(sep + 2);
    bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!valid) throw Error(ErrorKind::SpecEnvSyntax, "'${" + body + "}' is not a variable reference (write $${ for a literal ${)");
    auto value = env(name);
    if (value && (!value->empty() || !dflt)) out += *value;
    else if (dflt) out += *dflt;
    else throw Error(ErrorKind::SpecEnvUnset, "environment variable '" + name + "' is not set (use ${" + name + ":-default})");
    i = close;
  }
  return out;
}

}  // namespace engine::spec
