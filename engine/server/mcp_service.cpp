#include "engine/server/mcp_service.h"

#include <algorithm>

#include "engine/app/result_documents.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/net/json_rpc.h"
#include "engine/server/mcp_checks.h"

namespace engine::server {
namespace {

namespace jsonrpc = net::jsonrpc;

Value server_info() { return Value{{"name", "engine"}, {"version", ENGINE_VERSION}}; }

// What a run's progress notifications say: one per step, tool call or model call that ends.
class ProgressSink : public EventSink {
 public:
  ProgressSink(const McpService::Send& send, Value token, EventSink& next)
      : send_(send), token_(std::move(token)), next_(next) {}
  void receive(const Event& event, const EventPlace& place) override {
    std::string message;
    if (const auto* step = event.as<events::StepEnd>())
      message = "step " + step->step + " " + std::string(name_of(step->status));
    else if (const auto* tool = event.as<events::ToolEnd>()) message = "tool " + tool->tool + " answered";
    else if (const auto* call = event.as<events::LlmEnd>())
      message = call->error ? "the model call failed" : "the model answered";
    if (!message.empty()) {
      std::lock_guard lock(mu_);
      send_(jsonrpc::make_notification("notifications/progress",
                                       Value{{"progressToken", token_}, {"progress", ++done_}, {"message", message}}));
    }
    next_.receive(event, place);
  }
  EventDetail detail() const override { return EventDetail::Summary; }

 private:
  const McpService::Send& send_;
  Value token_;
  EventSink& next_;
  std::mutex mu_;
  int done_ = 0;
};

}  // namespace

McpService::McpService(CatalogSource catalog, RunLauncher& runs, Metrics& metrics, ServerObservers observers)
    : catalog_(std::move(catalog)), runs_(runs), metrics_(metrics), observers_(std::move(observers)) {}

Value McpService::parse_error(const std::string& why) { return jsonrpc::make_error(nullptr, jsonrpc::kParseError, why); }

Value McpService::finish(Value result, bool modern) const {
  if (modern) {
    result["resultType"] = "complete";
    result["_meta"]["io.modelcontextprotocol/serverInfo"] = server_info();
  }
  return result;
}

Value McpService::tool_list() const {
  Value tools = Value::array();
  for (const ServedWorkflow& w : catalog_()->workflows()) {
    Value doc = app::workflow_document(*w.executor, w.name);
    Value tool{{"name", w.name}, {"inputSchema", std::move(doc["input_schema"])}};
    // The declared outputs are the structured result; the answer itself is the text. A workflow that declares none
    // answers text alone.
    Value& outputs = doc["output_schema"]["properties"]["outputs"]["properties"];
    if (!outputs.empty()) {
      Value required = Value::array();
      for (const auto& [name, schema] : outputs.items()) required.push_back(name);
      tool["outputSchema"] = {{"type", "object"}, {"properties", std::move(outputs)}, {"required", std::move(required)}};
    }
    if (!w.executor->description().empty()) tool["description"] = std::move(doc["description"]);
    tools.push_back(std::move(tool));
  }
  return tools;
}

void McpService::handle(Value message, const Send& send, const Cancel* parent, const std::string& scope,
                        const std::string* traceparent) {
  if (!message.is_object() || string_field(message, "jsonrpc") != "2.0")
    return send(jsonrpc::make_error(field(message, "id"), jsonrpc::kInvalidRequest, "not a JSON-RPC 2.0 message"));
  std::string method = string_field(message, "method");
  bool is_request = message.contains("id") && (message["id"].is_string() || message["id"].is_number_integer());
  const Value& params = field(message, "params");
  if (!is_request) {
    // Notifications: a cancel is acted on; the rest (initialized, ...) need nothing.
    if (method == "notifications/cancelled") {
      std::string key = scope + "/" + to_json_text(field(params, "requestId"));
      std::lock_guard lock(mu_);
      if (auto it = calls_.find(key); it != calls_.end()) it->second->cancel();
    }
    return;
  }
  const Value id = message["id"];
  bool modern = field(field(params, "_meta"), "io.modelcontextprotocol/protocolVersion").is_string();
  if (std::optional<Value> refused = envelope_error(message))
    return send(jsonrpc::make_error(id, std::move(*refused)));
  if (modern && (method == "initialize" || method == "ping"))  // the 2025 era's, removed in 2026-07-28
    return send(jsonrpc::make_error(id, jsonrpc::kMethodNotFound, method + " is not a method of " + std::string(kMcpModernVersion)));
  if (method == "initialize") {
    std::string asked = string_field(params, "protocolVersion");
    bool known = std::any_of(std::begin(kMcpLegacyVersions), std::end(kMcpLegacyVersions),
                             [&](const char* v) { return asked == v; });
    return send(jsonrpc::make_result(id, Value{{"protocolVersion", known ? asked : kMcpLegacyVersion},
                                         {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                         {"serverInfo", server_info()}}));
  }
  if (method == "server/discover")
    return send(jsonrpc::make_result(id, finish(Value{{"supportedVersions", Value::array({kMcpModernVersion})},
                                                {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                                {"ttlMs", 0},
                                                {"cacheScope", "private"}},
                                          true)));
  if (method == "ping") return send(jsonrpc::make_result(id, Value::object()));
  if (method == "tools/list") {
    Value result{{"tools", tool_list()}};
    if (modern) {
      result["ttlMs"] = 0;
      result["cacheScope"] = "private";
    }
    return send(jsonrpc::make_result(id, finish(std::move(result), modern)));
  }
  if (method == "tools/call") return call_tool(id, params, modern, send, parent, scope, traceparent);
  send(jsonrpc::make_error(id, jsonrpc::kMethodNotFound, "the engine does not offer " + method));
}

void McpService::call_tool(const Value& id, const Value& params, bool modern, const Send& send,
                           const Cancel* parent, const std::string& scope, const std::string* traceparent) {
  std::string name = string_field(params, "name");
  auto catalog = catalog_();
  const ServedWorkflow* workflow = catalog->find(name);
  if (!workflow) return send(jsonrpc::make_error(id, jsonrpc::kInvalidParams, "no tool named '" + name + "'"));
  const Value& arguments = field(params, "arguments");
  if (!arguments.is_null() && !arguments.is_object())
    return send(jsonrpc::make_error(id, jsonrpc::kInvalidParams, "a tool's arguments are an object"));
  // What a notifications/cancelled for this id stops; the run's own Cancel, under it, adds the server's time limit.
  auto cancel = std::make_shared<Cancel>(parent, std::nullopt, "");
  std::string key = scope + "/" + to_json_text(id);
  {
    std::lock_guard lock(mu_);
    calls_[key] = cancel;
  }
  Value token = field(field(params, "_meta"), "progressToken");
  const Value& meta_trace = field(field(params, "_meta"), "traceparent");
  std::optional<std::string> context;
  if (meta_trace.is_string()) context = meta_trace.get<std::string>();
  else if (traceparent) context = *traceparent;
  auto executor = workflow->executor;
  Value given = arguments.is_object() ? arguments : Value::object();
  auto run = [this, id, key, cancel, token, executor, given = std::move(given), send, modern, context,
              name = workflow->name, file = workflow->file](const Cancel& run_cancel,
                                                            const std::function<void()>& ran) mutable {
    Value result;
    try {
      Value inputs = executor->resolve_inputs(std::move(given));
      ServerSpan call;
      if (observers_.spans) {  // named only when sent
        call.name = "tools/call " + name;
        call.attributes.set("mcp.method.name", std::string("tools/call"));
        call.attributes.set("gen_ai.tool.name", name);
        call.attributes.set("gen_ai.operation.name", std::string("execute_tool"));
        // The client's id, when it is a plain one (an id of any length would ride on every exported span).
        if (id.is_number_integer()) call.attributes.set("jsonrpc.request.id", std::to_string(id.get<int64_t>()));
        else if (id.is_string() && id.get_ref<const std::string&>().size() <= 128)
          call.attributes.set("jsonrpc.request.id", id.get<std::string>());
      }
      ServedRunSinks sinks(observers_, context ? &*context : nullptr, trace::RunSource{"mcp", file},
                           std::move(call));
      ModelCallTimer timer(metrics_, name, sinks.sink());
      std::optional<ProgressSink> progress;
      if (!token.is_null()) progress.emplace(send, token, timer);
      EventSink& events = progress ? static_cast<EventSink&>(*progress) : timer;
      agent::RunResult run = executor->run(inputs, events, {.cancel = &run_cancel, .trace = sinks.trace()});
      metrics_.count_run(name, run);
      Value doc = app::run_document(run);
      if (run.ok()) {
        const Value& out = doc["output"];
        std::string text = out.is_string() ? out.get<std::string>() : to_json_text(out);
        result = Value{{"content", Value::array({Value{{"type", "text"}, {"text", text}}})}, {"isError", false}};
        if (!executor->outputs().empty()) result["structuredContent"] = std::move(doc["outputs"]);
      } else {
        result = Value{{"content", Value::array({Value{{"type", "text"}, {"text", doc["error"]["message"]}}})},
                       {"isError", true}};
        sinks.fail_with("tool_error");  // OpenTelemetry's MCP conventions: a result with isError is a tool_error
      }
    } catch (const Error& e) {
      // Arguments that do not fit the workflow are the tool's error, which the model can read and mend.
      result = Value{{"content", Value::array({Value{{"type", "text"}, {"text", e.formatted()}}})},
                     {"isError", true}};
    }
    {
      std::lock_guard lock(mu_);
      calls_.erase(key);
    }
    ran();
    // A cancelled call is not answered (the client has stopped waiting for it), as the protocol asks.
    if (!run_cancel.stopped() || run_cancel.timed_out()) send(jsonrpc::make_result(id, finish(std::move(result), modern)));
    else send(Value());
  };
  auto refused = [this, id, key, send](const std::string& why) {
    {
      std::lock_guard lock(mu_);
      calls_.erase(key);
    }
    send(jsonrpc::make_error(id, jsonrpc::kInternalError, why));
  };
  runs_.start(cancel.get(), std::move(run),
              {.busy = [refused] { refused("the server has as many runs as it takes; try again shortly"); },
               .no_memory = [refused] { refused("the server cannot start another run now"); },
               .failed = [refused](const std::exception& e) { refused(std::string("the server failed: ") + e.what()); }});
}

}  // namespace engine::server
