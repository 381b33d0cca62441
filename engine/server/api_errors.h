#pragma once
// Errors as every endpoint answers them, in the OpenAI API's shape ({"error": {message, type, param, code}}), so
// the official clients raise their usual classes; the engine's error kind is the code.
#include <string>
#include <string_view>

#include "engine/core/error_kind.h"
#include "engine/server/http_message.h"

namespace engine::server {

// The status an engine error kind answers with: 400 for what the request got wrong (input.*, json.*, usage, a run id
// several runs start with), 404 for a run the store does not hold, 504
// for a run past its time, 503 for one cut short by a shutdown, 502 for a model that failed, else 500.
int status_for_error(ErrorKind kind);

// `message` must already be redacted.
HttpResponse error_response(int status, const std::string& message, const std::string& code = "",
                            const std::string& param = "");
// The same, an engine error's kind as its code.
HttpResponse error_response(int status, const std::string& message, ErrorKind code, const std::string& param = "");

}  // namespace engine::server
