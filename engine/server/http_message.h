#pragma once
// A request as the server's handlers see it; the response they give back is net/'s, the type the client receives.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/net/http_message.h"

namespace engine::server {

using net::HeaderList;
using net::HttpResponse;

struct HttpRequest {
  std::string method;
  std::string path;     // percent-decoded, without the query
  HeaderList headers;   // names in lower case
  HeaderList query;     // the query's arguments, percent-decoded, in order
  std::string body;
  std::string request_id;  // the client's x-request-id when it is a plain token, else one made here
  std::string client;      // the peer's address

  // The first header of that name (given in lower case), or null.
  const std::string* header(std::string_view lower_name) const;
  // The first query argument of that name, or "".
  std::string argument(std::string_view name) const;
};

// A JSON response: the body as given, with its content type.
HttpResponse json_response(int status, std::string body);

}  // namespace engine::server
