#include "engine/net/http_message.h"

namespace engine::net {

const std::string* find_header(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return &value;
  return nullptr;
}

}  // namespace engine::net
