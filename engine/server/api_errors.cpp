#include "engine/server/api_errors.h"

#include "engine/core/json_text.h"
#include "engine/core/value.h"

namespace engine::server {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// OpenAI's error type for a status (the official clients pick their class by the status; the type is for people).
const char* type_for(int status) {
  switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 429: return "rate_limit_error";
    default: return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

}  // namespace

int status_for_error(std::string_view kind) {
  if (starts_with(kind, "input.") || starts_with(kind, "json.") || kind == "usage" || kind == "store.ambiguous") return 400;
  if (kind == "store.no_such_run") return 404;
  if (kind == "run.timeout") return 504;
  if (kind == "run.cancelled") return 503;
  if (starts_with(kind, "llm.")) return 502;
  return 500;
}

HttpResponse error_response(int status, const std::string& message, const std::string& code,
                            const std::string& param) {
  Value error{{"message", message}, {"type", type_for(status)}, {"param", nullptr}, {"code", nullptr}};
  if (!code.empty()) error["code"] = code;
  if (!param.empty()) error["param"] = param;
  return json_response(status, to_json_text(Value{{"error", std::move(error)}}));
}

}  // namespace engine::server
