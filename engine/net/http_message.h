#pragma once
// An HTTP response and header list as the engine holds them on either side: what net/'s client receives and what
// server/'s handlers answer with.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::net {

// Received headers have their names in lower case; headers an answer sends are written as given.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The first header named `lower_name`, or null.
const std::string* find_header(const HeaderList& headers, std::string_view lower_name);

struct HttpResponse {
  int status = 200;
  HeaderList headers;
  // Received: the whole body, or only an error status's body when a 2xx body was being streamed to a sink.
  std::string body;
  // Received: the sink said it had what it wanted, so the body may be incomplete.
  bool aborted_by_sink = false;

  const std::string* header(std::string_view lower_name) const { return find_header(headers, lower_name); }
};

}  // namespace engine::net
