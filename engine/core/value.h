#pragma once
// One value type for the whole engine: template contexts, tool inputs and outputs, traces.
#include <nlohmann/json.hpp>

namespace engine {
using Value = nlohmann::ordered_json;
}
