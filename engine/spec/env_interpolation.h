#pragma once
// ${VAR} and ${VAR:-default} from the environment; $${ writes a literal ${.
#include <functional>
#include <optional>
#include <string>

namespace engine::spec {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

EnvLookup process_environment();

// Throws Error "spec.env_unset" naming the variable when one without a default is not set, and
// "spec.env_syntax" for a '${' that is never closed. The caller adds the location.
std::string interpolate_env(const std::string& text, const EnvLookup& env);

}  // namespace engine::spec
