#pragma once
// A request as the server's handlers see it, and the response they give back.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::server {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

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

struct HttpResponse {
  int status = 200;
  HeaderList headers;
  std::string body;
};

// A JSON response: the body as given, with its content type.
HttpResponse json_response(int status, std::string body);

}  // namespace engine::server
