#include "engine/server/http_message.h"

namespace engine::server {

const std::string* HttpRequest::header(std::string_view lower_name) const {
  return net::find_header(headers, lower_name);
}

std::string HttpRequest::argument(std::string_view wanted) const {
  for (const auto& [name, value] : query)
    if (name == wanted) return value;
  return "";
}

HttpResponse json_response(int status, std::string body) {
  return {status, {{"Content-Type", "application/json"}}, std::move(body)};
}

}  // namespace engine::server
