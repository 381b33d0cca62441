#include "engine/net/json_rpc.h"

namespace engine::net::jsonrpc {

Incoming classify(Value message) {
  Incoming in;
  if (!message.is_object() || string_field(message, "jsonrpc") != "2.0") {
    in.message = std::move(message);
    return in;
  }
  const Value& id = field(message, "id");
  bool has_id = id.is_string() || id.is_number_integer();
  const Value& method = field(message, "method");
  if (method.is_string()) {
    in.method = method.get<std::string>();
    in.kind = has_id ? Incoming::Kind::Request : message.contains("id") ? Incoming::Kind::Invalid : Incoming::Kind::Notification;
  } else if (has_id && (message.contains("result") != message.contains("error"))) {
    in.kind = Incoming::Kind::Response;
  }
  in.message = std::move(message);
  return in;
}

Value make_request(int64_t id, std::string_view method, Value params) {
  Value m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}

Value make_notification(std::string_view method, Value params) {
  Value m{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}

Value make_result(const Value& id, Value result) { return Value{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

Value make_error(const Value& id, int code, std::string_view message) {
  return Value{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Value make_error(const Value& id, Value error) {
  return Value{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

std::string error_text(const Value& response) {
  const Value& error = field(response, "error");
  if (error.is_null()) return "";
  std::string message = string_field(error, "message");
  if (message.empty()) message = "an error without a message";
  const Value& code = field(error, "code");
  if (code.is_number_integer()) message += " (code " + std::to_string(code.get<int64_t>()) + ")";
  return message;
}

}  // namespace engine::net::jsonrpc
