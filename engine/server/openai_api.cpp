// The OpenAI-compatible endpoints: each workflow with a chat input is a model, and a chat completion is one chat
// turn of it (the last user message is the input, the earlier exchanges its memory). The answer is the run's
// answer alone: a ReAct agent's thoughts and actions never reach the client, streamed or not. Streamed, a ReAct
// agent's answer goes out piece by piece as the model writes it (answer_token events, agent/answer_watch.h); any
// other answer goes out whole when the run ends.
#include <ctime>
#include <functional>

#include "engine/app/chat_turn.h"
#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/server/api_errors.h"
#include "engine/server/served_run_sinks.h"
#include "engine/server/service.h"
#include "engine/server/sse.h"

namespace engine::server {
namespace {

// A message's text: a string, or the text parts of a list of parts. Throws Error "input.bad_message".
std::string message_text(const Value& message, size_t index) {
  const Value* content = message.is_object() && message.contains("content") ? &message["content"] : nullptr;
  if (content && content->is_string()) return content->get<std::string>();
  if (content && content->is_null()) return "";
  if (content && content->is_array()) {
    std::string text;
    for (const Value& part : *content)
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string())
        text += part["text"].get<std::string>();
      else
        throw Error(ErrorKind::InputBadMessage, "messages[" + std::to_string(index) +
                                             "].content has a part that is not text; a workflow takes text");
    return text;
  }
  throw Error(ErrorKind::InputBadMessage, "messages[" + std::to_string(index) + "] needs a text content");
}

std::string role_of(const Value& message) {
  return message.is_object() && message.contains("role") && message["role"].is_string() ? message["role"].get<std::string>()
                                                                                         : "";
}

// What a request asks for, checked.
struct ChatRequest {
  std::string model;
  std::string message;                      // the last user message
  std::vector<std::pair<std::string, std::string>> history;  // earlier (user, assistant) pairs
  bool stream = false;
  bool include_usage = false;
};

ChatRequest read_chat_request(const std::string& body) {
  JsonError error;
  Value v = parse_json(body, &error);
  if (v.is_discarded()) throw Error(ErrorKind::InputInvalidJson, "the body is not JSON: " + error.message);
  if (!v.is_object()) throw Error(ErrorKind::InputNotObject, "the body must be a JSON object");
  ChatRequest r;
  if (!v.contains("model") || !v["model"].is_string())
    throw Error(ErrorKind::InputMissing, "'model' is required: the name of a served workflow (GET /v1/models)");
  r.model = v["model"].get<std::string>();
  if (!v.contains("messages") || !v["messages"].is_array() || v["messages"].empty())
    throw Error(ErrorKind::InputMissing, "'messages' must be a non-empty list of messages");
  const Value& messages = v["messages"];
  if (role_of(messages.back()) != "user")
    throw Error(ErrorKind::InputBadMessage, "the last message must be the user's: it is the workflow's input");
  r.message = message_text(messages.back(), messages.size() - 1);
  // Earlier messages become the memory's exchanges: each user message with the assistant's reply after it. System
  // and tool messages are left out: the workflow's own prompt says who the agent is.
  std::optional<std::string> asked;
  for (size_t i = 0; i + 1 < messages.size(); ++i) {
    std::string role = role_of(messages[i]);
    if (role == "user") {
      asked = message_text(messages[i], i);
    } else if (role == "assistant" && asked) {
      r.history.emplace_back(std::move(*asked), message_text(messages[i], i));
      asked.reset();
    } else if (role != "system" && role != "developer" && role != "tool" && role != "assistant") {
      throw Error(ErrorKind::InputBadMessage, "messages[" + std::to_string(i) + "] has no known role");
    }
  }
  if (v.contains("stream") && v["stream"].is_boolean()) r.stream = v["stream"].get<bool>();
  if (v.contains("stream_options") && v["stream_options"].is_object())
    r.include_usage = v["stream_options"].value("include_usage", false);
  return r;
}

Value usage_of(const agent::RunResult& result) {
  return {{"prompt_tokens", result.usage.prompt_tokens},
          {"completion_tokens", result.usage.completion_tokens},
          {"total_tokens", result.usage.total()}};
}


Value chunk(const std::string& id, long created, const std::string& model, Value delta, const Value& finish) {
  return {{"id", id},
          {"object", "chat.completion.chunk"},
          {"created", created},
          {"model", model},
          {"choices", Value::array({Value{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish},
                                          {"logprobs", nullptr}}})}};
}

std::string finish_reason(const agent::RunResult& result) {
  return result.stopped_reason == StoppedReason::MaxTokensTotal ? "length" : "stop";
}

std::string raw_answer(const agent::RunResult& result) {
  const Value& out = result.output;
  return out.is_null() ? "" : out.is_string() ? out.get<std::string>() : to_json_text(out);
}

// The pieces of the answer sent as content chunks while the run goes on. The exchange masks each chunk's bytes, but
// a key the model writes a token at a time reaches it cut by the chunks' framing into pieces too short to mask: so
// the answer's text passes a MaskingWriter here as one text, each chunk a flush (a tail that could be the start of a
// key waits for the next piece, unless it is too short to be a maskable piece of one). Only the top-level agent's
// answer: a workflow used as a tool answers under the tool's name.
class AnswerChunks : public EventSink {
 public:
  using Send = std::function<void(const std::string& content)>;
  AnswerChunks(EventSink& inner, std::shared_ptr<const SecretSet> secrets, Send send)
      : inner_(inner), masking_(std::move(secrets)), send_(std::move(send)) {}

  void receive(const Event& event, const EventPlace& place) override {
    inner_.receive(event, place);
    const auto* token = event.as<events::AnswerToken>();
    if (!token || !place.step.empty()) return;
    sent_ += token->text;
    std::string piece;
    masking_.write(token->text, piece, true);
    if (!piece.empty()) send_(piece);
  }
  EventDetail detail() const override { return std::max(inner_.detail(), EventDetail::Summary); }

  // The rest of the run's answer; false when what went out is not its start (the model wrote on past what looked
  // like its final answer), and nothing more is sent.
  bool finish(const std::string& answer) {
    if (answer.compare(0, sent_.size(), sent_) != 0) return false;
    std::string piece;
    masking_.write(std::string_view(answer).substr(sent_.size()), piece);
    masking_.finish(piece);
    if (!piece.empty()) send_(piece);
    return true;
  }

 private:
  EventSink& inner_;
  MaskingWriter masking_;
  Send send_;
  std::string sent_;  // the answer's pieces so far, as the agent wrote them
};

}  // namespace

namespace {

Value model_document(const ServedWorkflow& w) {
  return {{"id", w.name}, {"object", "model"}, {"created", w.created}, {"owned_by", "engine"}};
}

}  // namespace

void Service::list_models(Exchange& exchange) const {
  Value data = Value::array();
  for (const ServedWorkflow& w : catalog()->workflows())
    if (!w.executor->chat_input().empty()) data.push_back(model_document(w));
  exchange.respond(json_response(200, to_json_text(Value{{"object", "list"}, {"data", std::move(data)}})));
}

void Service::retrieve_model(Exchange& exchange, std::string_view id) const {
  auto catalog = this->catalog();
  const ServedWorkflow* w = catalog->find(id);
  if (!w || w->executor->chat_input().empty())
    return exchange.respond(error_response(404, "the model '" + printable_excerpt(id, 100) +
                                                    "' does not exist: GET /v1/models lists the served workflows",
                                           "model_not_found"));
  exchange.respond(json_response(200, to_json_text(model_document(*w))));
}

void Service::chat_completion(const std::shared_ptr<Exchange>& exchange) {
  ChatRequest request;
  try {
    request = read_chat_request(exchange->request().body);
  } catch (const Error& e) {
    return exchange->respond(error_response(400, e.message(), e.kind()));
  }
  auto catalog = this->catalog();
  const ServedWorkflow* workflow = catalog->find(request.model);
  if (!workflow)
    return exchange->respond(error_response(404, "the model '" + printable_excerpt(request.model, 100) +
                                                     "' does not exist: GET /v1/models lists the served workflows",
                                            "model_not_found", "model"));
  if (workflow->executor->chat_input().empty())
    return exchange->respond(error_response(400, "the workflow '" + workflow->name +
                                                     "' has no chat input (an input named 'input', or "
                                                     "agent.memory.input_key), so it cannot be a chat model",
                                            "model_not_chat", "model"));
  auto executor = workflow->executor;
  auto shared = std::make_shared<ChatRequest>(std::move(request));
  start_run(exchange, [this, exchange, executor, shared, name = workflow->name, file = workflow->file](
                          const Cancel& cancel, const std::function<void()>& ran) {
    const ChatRequest& r = *shared;
    // One id for every chunk, known before the run starts: the request's.
    std::string id = "chatcmpl-" + exchange->request().request_id;
    long created = static_cast<long>(std::time(nullptr));
    if (r.stream) {
      exchange->open_stream(sse_head());
      exchange->send(sse_event("", to_json_text(chunk(id, created, r.model, {{"role", "assistant"}, {"content", ""}},
                                                      nullptr))));
    }
    app::Session session(executor->chat_output());
    agent::RunResult result;
    ServedRunSinks sinks(observers_, exchange->request(), file);
    ModelCallTimer timer(metrics_, name, sinks.sink());
    AnswerChunks chunks(timer, executor->secrets(), [&](const std::string& content) {
      exchange->send(sse_event("", to_json_text(chunk(id, created, r.model, {{"content", content}}, nullptr))));
    });
    try {
      for (const auto& [asked, answered] : r.history) session.add_turn(asked, answered);
      result = r.stream ? app::run_chat_turn(*executor, session, Value::object(), r.message, chunks,
                                             {.stream_answer = true, .cancel = &cancel, .trace = sinks.trace()})
                        : app::run_chat_turn(*executor, session, Value::object(), r.message, timer,
                                             {.cancel = &cancel, .trace = sinks.trace()});
    } catch (const Error& e) {
      result.error = agent::RunError::from(e);
    }
    if (result.ok() && r.stream && !chunks.finish(raw_answer(result))) {
      result.error = agent::RunError::from(Error(
          ErrorKind::ServeAnswerWithdrawn,
          "the model wrote on past what read as its final answer, so the answer streamed so far is not the run's "
          "answer; ask again, or without stream"));
      result.stopped_reason = StoppedReason::Error;
    }
    metrics_.count_run(name, result);
    ran();
    if (!result.ok()) {
      int status = status_for_error(result.error->kind);
      sinks.respond_with(r.stream ? 200 : status);  // a stream's status was sent when it opened
      HttpResponse failed = error_response(status, result.error->to_error().formatted(),
                                           result.error->kind);
      if (!r.stream) return exchange->respond(std::move(failed));
      // A chunk carrying an error makes the official clients raise it mid-stream.
      exchange->send(sse_event("", failed.body));
      return exchange->end_stream();
    }
    sinks.respond_with(200);
    if (!r.stream) {
      std::string answer = raw_answer(result);
      Value doc{{"id", id},
                {"object", "chat.completion"},
                {"created", created},
                {"model", r.model},
                {"choices", Value::array({Value{{"index", 0},
                                                {"message", {{"role", "assistant"}, {"content", answer}, {"refusal", nullptr}}},
                                                {"finish_reason", finish_reason(result)},
                                                {"logprobs", nullptr}}})},
                {"usage", usage_of(result)}};
      return exchange->respond(json_response(200, to_json_text(doc)));
    }
    exchange->send(
        sse_event("", to_json_text(chunk(id, created, r.model, Value::object(), finish_reason(result)))));
    if (r.include_usage) {
      Value last{{"id", id}, {"object", "chat.completion.chunk"}, {"created", created}, {"model", r.model},
                 {"choices", Value::array()}, {"usage", usage_of(result)}};
      exchange->send(sse_event("", to_json_text(last)));
    }
    exchange->send("data: [DONE]\n\n");
    exchange->end_stream();
  });
}

}  // namespace engine::server
