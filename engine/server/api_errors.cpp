#include "engine/server/api_errors.h"

#include "engine/core/json_text.h"
#include "engine/core/value.h"

namespace engine::server {
namespace {

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

int status_for_error(ErrorKind kind) {
  std::string_view family = family_of(kind);
  if (family == "input" || family == "json" || kind == ErrorKind::Usage || kind == ErrorKind::StoreAmbiguous) return 400;
  if (kind == ErrorKind::StoreNoSuchRun) return 404;
  // A run that cannot go on as asked now: settled by someone (resolve), by waiting (busy), or by the workflow.
  if (kind == ErrorKind::JournalInDoubt || kind == ErrorKind::JournalBusy || kind == ErrorKind::JournalChanged)
    return 409;
  if (kind == ErrorKind::ServeKeyReused) return 422;
  if (kind == ErrorKind::RunTimeout) return 504;
  if (kind == ErrorKind::RunCancelled) return 503;
  if (family == "llm") return 502;
  return 500;
}

HttpResponse error_response(int status, const std::string& message, const std::string& code,
                            const std::string& param) {
  Value error{{"message", message}, {"type", type_for(status)}, {"param", nullptr}, {"code", nullptr}};
  if (!code.empty()) error["code"] = code;
  if (!param.empty()) error["param"] = param;
  return json_response(status, to_json_text(Value{{"error", std::move(error)}}));
}

HttpResponse error_response(int status, const std::string& message, ErrorKind code, const std::string& param) {
  return error_response(status, message, std::string(name_of(code)), param);
}

}  // namespace engine::server
