// engine serve's endpoints, in process: a Server over workflows in a temporary folder, asked with cpp-httplib. The
// workflow API (list, invoke, stream, batch), the OpenAI-compatible one (models, completions streamed or not, its
// errors), tokens, the run slots and their 429, a run's time limit, reload, and redaction on the way out.
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <httplib.h>
#include <thread>

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/server/serve.h"
#include "engine/store/run_store.h"
#include "support/mock_llm_server.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::server;
using namespace std::chrono_literals;

namespace {

const char* const kServeSecret = "sk-serve-secret-0123456789abcdef";

const char* const kEchoWorkflow = R"(name: echo
description: Says back what it is told.
inputs:
  input: What to say back
  mood:
    description: How to say it
    default: plainly
outputs:
  said:
    description: The words said back
    value: "{{ output }}"
llm:
  provider: scripted
  api_key_env: TEST_SERVE_SECRET
  scripted:
    rules:
      - match: '(?s)Earlier: (?P<h>.*)\nNow \((?P<m>[a-z]+)\): (?P<q>[^\n]*)\n$'
        reply: "Thought: I am to say it back.\nFinal Answer: you said {{ q }} {{ m }}{% if h %} after: {{ h }}{% endif %}"
agent:
  kind: react
  prompt: "Earlier: {{ history_text | replace('\n', ' | ') }}\nNow ({{ mood }}): {{ input }}\n{{ agent_scratchpad }}"
  memory: {kind: full}
)";

// A workflow of steps: served, but not a chat model (no chat input).
const char* const kStepsWorkflow = R"(name: shout
inputs:
  text: words
llm:
  provider: scripted
  scripted:
    rules: [{match: 'Shout: (?P<t>.*)$', reply: '{{ t | upper }}'}]
steps:
  shout: {kind: llm, prompt: 'Shout: {{ text }}'}
)";

struct Served {
  test::TempDir dir;
  std::unique_ptr<Server> server;
  std::unique_ptr<httplib::Client> client;

  // `slow_ms`: how long the workflow `slow` takes to answer.
  explicit Served(ServeOptions options = {}, int slow_ms = 3000) {
    ::setenv("TEST_SERVE_SECRET", kServeSecret, 1);
    dir.write("echo.yaml", kEchoWorkflow);
    dir.write("slow.yaml", test::slow_workflow(slow_ms));
    dir.write("shout.yaml", kStepsWorkflow);
    dir.write("echo.test.yaml", "not a workflow: the folder's tests are left out\n");
    options.paths = {dir.path().string()};
    options.port = 0;
    options.http.heartbeat = 100ms;
    std::vector<std::string> problems;
    server = std::make_unique<Server>(options, problems);
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    client->set_read_timeout(20, 0);
  }
  ~Served() { ::unsetenv("TEST_SERVE_SECRET"); }

  httplib::Result post(const std::string& path, const std::string& body) {
    return client->Post(path.c_str(), body, "application/json");
  }
};

Value body_of(const httplib::Result& r) { return parse_json(r->body); }

// The JSON chunks of a streamed chat completion, and whether it ended with [DONE].
std::vector<Value> chat_chunks(const std::string& body, bool& done) {
  std::vector<Value> chunks;
  for (size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
    size_t end = body.find("\n\n", at);
    std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    if (data == "[DONE]") done = true;
    else chunks.push_back(parse_json(data));
  }
  return chunks;
}

// What a client on another thread got.
struct Answer {
  int status = 0;
  std::string body;
};

Answer post_from_thread(uint16_t port, const std::string& path, const std::string& body) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(20, 0);
  auto r = c.Post(path.c_str(), body, "application/json");
  return r ? Answer{r->status, r->body} : Answer{};
}

}  // namespace

TEST_CASE("serve: GET /v1/workflows lists each workflow of the folder with its input and output schemas",
          "[server][serve]") {
  Served s;
  auto r = s.client->Get("/v1/workflows");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value list = body_of(r);
  REQUIRE(list["data"].size() == 3);
  Value echo = list["data"][0];
  CHECK(echo["name"] == "echo");
  CHECK(echo["description"] == "Says back what it is told.");
  CHECK(echo["input_schema"]["required"] == Value::array({"input"}));
  CHECK(echo["input_schema"]["properties"]["mood"]["default"] == "plainly");
  CHECK(echo["output_schema"]["properties"]["outputs"]["properties"]["said"]["description"] == "The words said back");
  CHECK(echo["chat_input"] == "input");
  CHECK(list["data"][1]["name"] == "shout");
  CHECK(list["data"][1]["chat_input"].is_null());
}

TEST_CASE("serve: invoke runs the workflow on the body's inputs and answers its output, outputs and usage",
          "[server][serve]") {
  Served s;
  auto r = s.post("/v1/workflows/echo/invoke", R"({"input": "hello", "mood": "loudly"})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value doc = body_of(r);
  CHECK(doc["output"] == "you said hello loudly");
  CHECK(doc["outputs"]["said"] == "you said hello loudly");
  CHECK(doc["stopped_reason"] == "finish");
  CHECK(doc["usage"]["llm_calls"] == 1);
  CHECK(doc["run_id"].get<std::string>().size() == 16);
  auto steps = s.post("/v1/workflows/shout/invoke", R"({"text": "quiet"})");
  REQUIRE(steps);
  CHECK(body_of(steps)["output"] == "QUIET");
}

TEST_CASE("serve: a body that is not the workflow's inputs is a 400 naming what is wrong", "[server][serve]") {
  Served s;
  struct Case {
    std::string body, code, says;
  };
  for (const Case& c : {Case{"{\"input\": ", "input.invalid_json", "not JSON"},
                        Case{"[1, 2]", "input.not_object", "JSON object"},
                        Case{"{}", "input.missing", "input"},
                        Case{"{\"input\": \"x\", \"moood\": 1}", "input.unknown", "mood"}}) {
    INFO(c.body);
    auto r = s.post("/v1/workflows/echo/invoke", c.body);
    REQUIRE(r);
    CHECK(r->status == 400);
    Value error = body_of(r)["error"];
    CHECK(error["code"] == c.code);
    CHECK(error["type"] == "invalid_request_error");
    CHECK(error["message"].get<std::string>().find(c.says) != std::string::npos);
  }
}

TEST_CASE("serve: unknown workflows, endpoints and methods answer 404 and 405, a traversal finds nothing",
          "[server][serve][hostile]") {
  Served s;
  auto missing = s.post("/v1/workflows/nope/invoke", "{}");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(body_of(missing)["error"]["code"] == "workflow_not_found");
  for (const char* path : {"/v1/workflows/..%2F..%2Fetc%2Fpasswd/invoke", "/v1/workflows/../echo/invoke",
                           "/v1/workflows/echo%00/invoke", "/v1/workflows//invoke", "/v1/workflows/echo/run",
                           "/v1/workflows/echo", "/etc/passwd"}) {
    INFO(path);
    auto r = s.post(path, "{}");
    REQUIRE(r);
    CHECK(r->status == 404);
  }
  auto get = s.client->Get("/v1/workflows/echo/invoke");
  REQUIRE(get);
  CHECK(get->status == 405);
  CHECK(get->get_header_value("Allow") == "POST");
}

TEST_CASE("serve: stream sends the run's events as SSE, then its result", "[server][serve]") {
  Served s;
  auto r = s.post("/v1/workflows/echo/stream", R"({"input": "hi"})");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "text/event-stream");
  const std::string& text = r->body;
  size_t start = text.find("event: chain_start\ndata: {");
  size_t token = text.find("event: llm_token\n");
  size_t result = text.find("event: result\ndata: {");
  REQUIRE(start != std::string::npos);
  CHECK(token > start);
  REQUIRE(result != std::string::npos);
  CHECK(result > token);
  Value doc = parse_json(std::string_view(text).substr(result + 20, text.find('\n', result + 20) - result - 20));
  CHECK(doc["output"] == "you said hi plainly");
  // A bad input is an ordinary 400, before any stream starts.
  auto bad = s.post("/v1/workflows/echo/stream", "{}");
  REQUIRE(bad);
  CHECK(bad->status == 400);
}

TEST_CASE("serve: batch runs each inputs object and answers each result in order", "[server][serve]") {
  ServeOptions options;
  options.service.max_batch = 3;
  Served s(options);
  auto r = s.post("/v1/workflows/echo/batch", R"({"inputs": [{"input": "a"}, {"input": "b"}, 7]})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value results = body_of(r)["results"];
  REQUIRE(results.size() == 3);
  CHECK(results[0]["output"] == "you said a plainly");
  CHECK(results[1]["output"] == "you said b plainly");
  CHECK(results[2]["error"]["code"] == "input.not_object");
  auto big = s.post("/v1/workflows/echo/batch", R"({"inputs": [{}, {}, {}, {}]})");
  REQUIRE(big);
  CHECK(big->status == 400);
  CHECK(body_of(big)["error"]["code"] == "input.too_many");
  auto shapeless = s.post("/v1/workflows/echo/batch", R"([{"input": "a"}])");
  REQUIRE(shapeless);
  CHECK(shapeless->status == 400);
}

TEST_CASE("serve: a chat completion is one chat turn and earlier messages are its memory", "[server][serve][openai]") {
  Served s;
  auto r = s.post("/v1/chat/completions", R"({"model": "echo", "messages": [
      {"role": "system", "content": "left out"},
      {"role": "user", "content": "one"}, {"role": "assistant", "content": "said one"},
      {"role": "user", "content": [{"type": "text", "text": "two"}]}]})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value doc = body_of(r);
  CHECK(doc["object"] == "chat.completion");
  CHECK(doc["model"] == "echo");
  CHECK(doc["choices"][0]["message"]["role"] == "assistant");
  // The answer alone: neither the Thought nor the Final Answer marker reaches the client.
  CHECK(doc["choices"][0]["message"]["content"] == "you said two plainly after: Human: one | AI: said one");
  CHECK(doc["choices"][0]["finish_reason"] == "stop");
  CHECK(doc["usage"]["total_tokens"].get<int>() > 0);
  CHECK(doc["id"].get<std::string>().rfind("chatcmpl-", 0) == 0);
}

TEST_CASE("serve: a streamed chat completion sends the role, the answer token by token, the finish, the usage and [DONE]",
          "[server][serve][openai]") {
  Served s;
  auto r = s.post("/v1/chat/completions", R"({"model": "echo", "stream": true, "stream_options": {"include_usage": true},
                                             "messages": [{"role": "user", "content": "hey"}]})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  bool done = false;
  std::vector<Value> chunks = chat_chunks(r->body, done);
  CHECK(done);
  REQUIRE(chunks.size() >= 5);
  CHECK(chunks.front()["choices"][0]["delta"]["role"] == "assistant");
  // The scripted model streams a word at a time; the answer's words go out as they come, the Thought never.
  std::string content;
  for (size_t i = 1; i + 2 < chunks.size(); ++i) content += chunks[i]["choices"][0]["delta"]["content"].get<std::string>();
  CHECK(content == "you said hey plainly");
  CHECK(chunks.size() - 3 > 1);
  Value finish = chunks[chunks.size() - 2];
  CHECK(finish["choices"][0]["finish_reason"] == "stop");
  CHECK(chunks.back()["choices"].empty());
  CHECK(chunks.back()["usage"]["total_tokens"].get<int>() > 0);
  for (const Value& c : chunks) CHECK(c["id"] == chunks[0]["id"]);
  CHECK(r->body.find("Thought") == std::string::npos);
  CHECK(r->body.find("Final Answer") == std::string::npos);
}

TEST_CASE("serve: a streamed answer the model takes back ends in an error, never in another answer",
          "[server][serve][openai]") {
  Served s;
  s.dir.write("fickle.yaml", R"(name: fickle
inputs:
  input: q
llm:
  provider: scripted
  scripted:
    replies:
      - "Thought: sure\nFinal Answer: maybe\nAction: Search\nAction Input: x"
      - "Final Answer: certainly"
agent:
  kind: react
  on_parse_error: retry
  prompt: "{{ input }}\n{{ agent_scratchpad }}"
)");
  s.server->reload();
  auto r = s.post("/v1/chat/completions", R"({"model": "fickle", "stream": true,
                                             "messages": [{"role": "user", "content": "well?"}]})");
  REQUIRE(r);
  bool done = false;
  std::vector<Value> chunks = chat_chunks(r->body, done);
  CHECK_FALSE(done);
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[1]["choices"][0]["delta"]["content"] == "maybe");  // the Action after it never went out
  CHECK(chunks[2]["error"]["code"] == "serve.answer_withdrawn");
  CHECK(r->body.find("Search") == std::string::npos);
  // Unstreamed, the same run answers.
  auto whole = s.post("/v1/chat/completions", R"({"model": "fickle", "messages": [{"role": "user", "content": "well?"}]})");
  REQUIRE(whole);
  CHECK(body_of(whole)["choices"][0]["message"]["content"] == "certainly");
}

TEST_CASE("serve: chat completion errors come in OpenAI's shape with the status its clients expect",
          "[server][serve][openai]") {
  Served s;
  struct Case {
    std::string body;
    int status;
    std::string code, param;
  };
  for (const Case& c :
       {Case{R"({"model": "nope", "messages": [{"role": "user", "content": "x"}]})", 404, "model_not_found", "model"},
        Case{R"({"model": "shout", "messages": [{"role": "user", "content": "x"}]})", 400, "model_not_chat", "model"},
        Case{R"({"model": "echo", "messages": []})", 400, "input.missing", ""},
        Case{R"({"messages": [{"role": "user", "content": "x"}]})", 400, "input.missing", ""},
        Case{R"({"model": "echo", "messages": [{"role": "assistant", "content": "x"}]})", 400, "input.bad_message", ""},
        Case{R"({"model": "echo", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]})", 400,
             "input.bad_message", ""},
        Case{"{\"model\": ", 400, "input.invalid_json", ""}}) {
    INFO(c.body);
    auto r = s.post("/v1/chat/completions", c.body);
    REQUIRE(r);
    CHECK(r->status == c.status);
    Value error = body_of(r)["error"];
    CHECK(error["code"] == c.code);
    if (!c.param.empty()) CHECK(error["param"] == c.param);
    CHECK(error["message"].is_string());
  }
  auto models = s.client->Get("/v1/models");
  REQUIRE(models);
  Value ids = Value::array();
  Value listed = body_of(models);
  for (const Value& m : listed["data"]) ids.push_back(m["id"]);
  CHECK(ids == Value::array({"echo", "slow"}));  // shout has no chat input
}

TEST_CASE("serve: with tokens, every endpoint but /healthz needs one", "[server][serve][auth]") {
  ServeOptions options;
  options.tokens = {"tok-0123456789abcdef", "tok-fedcba9876543210"};
  Served s(options);
  auto health = s.client->Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  for (const char* auth : {"", "Bearer wrong-token-000000000", "Bearer tok-0123456789abcde", "Basic tok-0123456789abcdef",
                           "Bearer tok-0123456789abcdefX"}) {
    INFO(auth);
    httplib::Headers headers;
    if (*auth) headers.emplace("Authorization", auth);
    auto r = s.client->Get("/v1/models", headers);
    REQUIRE(r);
    CHECK(r->status == 401);
    CHECK(body_of(r)["error"]["type"] == "authentication_error");
    CHECK(r->body.find("tok-") == std::string::npos);
  }
  for (const char* auth : {"Bearer tok-0123456789abcdef", "bearer tok-fedcba9876543210"}) {
    auto r = s.client->Get("/v1/models", {{"Authorization", auth}});
    REQUIRE(r);
    CHECK(r->status == 200);
  }
}

TEST_CASE("serve: every route refuses a rebound Host and another site's Origin with 403, before any other answer",
          "[server][serve][origin]") {
  Served s;
  struct Route {
    const char* method;
    const char* path;
    const char* body;
  };
  const Route routes[] = {
      {"GET", "/healthz", ""},
      {"GET", "/readyz", ""},
      {"GET", "/metrics", ""},
      {"GET", "/v1/workflows", ""},
      {"GET", "/v1/models", ""},
      {"POST", "/v1/chat/completions", R"({"model": "echo", "messages": [{"role": "user", "content": "hi"}]})"},
      {"POST", "/v1/workflows/echo/invoke", R"({"input": "hi"})"},
      {"POST", "/v1/workflows/echo/stream", R"({"input": "hi"})"},
      {"POST", "/v1/workflows/echo/batch", R"({"inputs": [{"input": "hi"}]})"},
      {"POST", "/mcp", R"({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})"},
      {"GET", "/v1/runs", ""},
      {"GET", "/ui/", ""},
      {"GET", "/nowhere", ""},
  };
  std::string own = "http://127.0.0.1:" + std::to_string(s.server->port());
  auto ask = [&](const Route& route, const httplib::Headers& headers) {
    auto r = std::string(route.method) == "GET" ? s.client->Get(route.path, headers)
                                                : s.client->Post(route.path, headers, route.body, "application/json");
    REQUIRE(r);
    return std::pair<int, std::string>(r->status, r->body);
  };
  for (const Route& route : routes) {
    INFO(route.method << " " << route.path);
    auto rebound = ask(route, {{"Host", "attacker.example:" + std::to_string(s.server->port())}});
    CHECK(rebound.first == 403);
    CHECK(parse_json(rebound.second)["error"]["code"] == "host_not_local");
    auto foreign = ask(route, {{"Origin", "https://attacker.example"}});
    CHECK(foreign.first == 403);
    CHECK(parse_json(foreign.second)["error"]["code"] == "origin_not_allowed");
    // Without an Origin, or from the server's own page, the route answers as it does (the runs API: 503, no store).
    for (const httplib::Headers& fine : {httplib::Headers{}, httplib::Headers{{"Origin", own}}}) {
      auto answered = ask(route, fine);
      CHECK(answered.first != 403);
      CHECK(answered.second.find("origin_not_allowed") == std::string::npos);
    }
  }
}

TEST_CASE("serve: --allow-origin lets a named site's pages call the server, and no other", "[server][serve][origin]") {
  ServeOptions options;
  options.allowed_origins = {"https://app.example.com"};
  Served s(options);
  auto allowed = s.client->Get("/v1/models", {{"Origin", "https://app.example.com"}});
  REQUIRE(allowed);
  CHECK(allowed->status == 200);
  // The page may read the answer (CORS), a stream's too.
  CHECK(allowed->get_header_value("Access-Control-Allow-Origin") == "https://app.example.com");
  CHECK(allowed->get_header_value("Vary") == "Origin");
  auto streamed = s.client->Post("/v1/workflows/echo/stream", {{"Origin", "https://app.example.com"}},
                                 R"({"input": "hi"})", "application/json");
  REQUIRE(streamed);
  CHECK(streamed->get_header_value("Access-Control-Allow-Origin") == "https://app.example.com");
  auto preflight = s.client->Options(
      "/mcp", {{"Origin", "https://app.example.com"}, {"Access-Control-Request-Method", "POST"}});
  REQUIRE(preflight);
  CHECK(preflight->status == 204);
  CHECK(preflight->get_header_value("Access-Control-Allow-Origin") == "https://app.example.com");
  CHECK(preflight->get_header_value("Access-Control-Allow-Methods") == "GET, POST, DELETE");
  auto other = s.client->Get("/v1/models", {{"Origin", "https://other.example.com"}});
  REQUIRE(other);
  CHECK(other->status == 403);
  CHECK_FALSE(other->has_header("Access-Control-Allow-Origin"));
  // The server's own page needs no CORS header, and gets none.
  auto own = s.client->Get("/v1/models", {{"Origin", "http://127.0.0.1:" + std::to_string(s.server->port())}});
  REQUIRE(own);
  CHECK(own->status == 200);
  CHECK_FALSE(own->has_header("Access-Control-Allow-Origin"));
}

TEST_CASE("serve: a 401 points to the resource metadata, which is public and names the bearer scheme",
          "[server][serve][auth]") {
  ServeOptions options;
  options.tokens = {"tok-0123456789abcdef"};
  Served s(options);
  std::string origin = "http://127.0.0.1:" + std::to_string(s.server->port());
  auto denied = s.client->Get("/v1/models");
  REQUIRE(denied);
  CHECK(denied->status == 401);
  CHECK(denied->get_header_value("WWW-Authenticate") ==
        "Bearer resource_metadata=\"" + origin + "/.well-known/oauth-protected-resource\"");
  auto mcp = s.post("/mcp", R"({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})");
  REQUIRE(mcp);
  CHECK(mcp->status == 401);
  CHECK(mcp->get_header_value("WWW-Authenticate") ==
        "Bearer resource_metadata=\"" + origin + "/.well-known/oauth-protected-resource/mcp\"");
  auto metadata = s.client->Get("/.well-known/oauth-protected-resource/mcp");
  REQUIRE(metadata);
  CHECK(metadata->status == 200);
  CHECK(body_of(metadata) == Value{{"resource", origin + "/mcp"},
                                   {"bearer_methods_supported", Value::array({"header"})},
                                   {"resource_name", "engine serve"}});
  auto whole = s.client->Get("/.well-known/oauth-protected-resource", {{"X-Forwarded-Proto", "https"}});
  REQUIRE(whole);
  CHECK(body_of(whole)["resource"] == "https://127.0.0.1:" + std::to_string(s.server->port()));
  // A Host that cannot be quoted in the challenge is left out of it.
  auto odd = s.client->Get("/v1/models", {{"Host", "a\"b"}});
  REQUIRE(odd);
  CHECK(odd->status == 401);
  CHECK(odd->get_header_value("WWW-Authenticate") == "Bearer");
  // A server without tokens protects nothing and publishes no metadata.
  Served open;
  auto none = open.client->Get("/.well-known/oauth-protected-resource");
  REQUIRE(none);
  CHECK(none->status == 404);
}

TEST_CASE("serve: a stream leaves out prompts and inputs whether or not the runs are recorded", "[server][serve][runs]") {
  test::TempDir store_dir;
  ServeOptions recorded;
  recorded.store = store_dir.path() / "runs.db";
  for (const ServeOptions& options : {ServeOptions{}, recorded}) {
    INFO((options.store ? "recorded" : "not recorded"));
    Served s(options);
    for (const char* name : {"echo", "shout"}) {
      auto r = s.post(std::string("/v1/workflows/") + name + "/stream",
                      name == std::string("echo") ? R"({"input": "hi"})" : R"({"text": "hi"})");
      REQUIRE(r);
      CHECK(r->status == 200);
      int starts = 0;
      for (size_t at = 0; (at = r->body.find("data: ", at)) != std::string::npos;) {
        size_t end = r->body.find('\n', at);
        Value event = parse_json(std::string_view(r->body).substr(at + 6, end - at - 6));
        at = end;
        if (event["type"] == "llm_start") {
          ++starts;
          CHECK_FALSE(event.contains("prompt"));
          CHECK_FALSE(event.contains("messages"));
        }
        if (event["type"] == "chain_start") CHECK_FALSE(event.contains("inputs"));
      }
      CHECK(starts == 1);
    }
  }
}

TEST_CASE("serve: past the runs in flight and the queue, a request is turned away with 429 and Retry-After",
          "[server][serve][limits]") {
  ServeOptions options;
  options.service.runs_in_flight = 1;
  options.service.runs_queued = 0;
  Served s(options);
  Answer first;
  std::thread slow([&] { first = post_from_thread(s.server->port(), "/v1/workflows/slow/invoke", R"({"input": "x"})"); });
  REQUIRE(test::wait_until([&] { return s.server->running_runs() == 1; }));
  auto busy = s.post("/v1/workflows/echo/invoke", R"({"input": "x"})");
  REQUIRE(busy);
  CHECK(busy->status == 429);
  CHECK(busy->get_header_value("Retry-After") == "1");
  CHECK(body_of(busy)["error"]["type"] == "rate_limit_error");
  slow.join();
  CHECK(first.status == 200);
  auto after = s.post("/v1/workflows/echo/invoke", R"({"input": "x"})");
  REQUIRE(after);
  CHECK(after->status == 200);
}

TEST_CASE("serve: a run past the server's time limit ends with 504", "[server][serve][limits]") {
  ServeOptions options;
  options.service.run_timeout = 1s;
  Served s(options);
  auto r = s.post("/v1/workflows/slow/invoke", R"({"input": "x"})");
  REQUIRE(r);
  CHECK(r->status == 504);
  Value doc = body_of(r);
  CHECK(doc["error"]["code"] == "run.timeout");
  CHECK(doc["error"]["message"].get<std::string>().find("--run-timeout") != std::string::npos);
  CHECK(doc["stopped_reason"] == "timeout");
}

TEST_CASE("serve: a key that reaches a run never leaves in a response", "[server][serve][redaction]") {
  Served s;
  std::string input = std::string("echo ") + kServeSecret;
  auto invoke = s.post("/v1/workflows/echo/invoke", "{\"input\": \"" + input + "\"}");
  auto stream = s.post("/v1/workflows/echo/stream", "{\"input\": \"" + input + "\"}");
  auto chat = s.post("/v1/chat/completions",
                     "{\"model\": \"echo\", \"messages\": [{\"role\": \"user\", \"content\": \"" + input + "\"}]}");
  auto streamed = s.post("/v1/chat/completions", "{\"model\": \"echo\", \"stream\": true, \"messages\": "
                                                 "[{\"role\": \"user\", \"content\": \"" + input + "\"}]}");
  for (auto* r : {&invoke, &stream, &chat, &streamed}) {
    REQUIRE(*r);
    CHECK((*r)->status == 200);
    CHECK_FALSE(test::holds_piece_of_key((*r)->body, kServeSecret));
    CHECK((*r)->body.find("***") != std::string::npos);
  }
}

// The server has one secret set: a key one workflow reads is masked in every answer, another workflow's too.
TEST_CASE("serve: one workflow's key is masked in the answers of another that has no key", "[server][serve][redaction]") {
  Served s;
  s.dir.write("parrot.yaml", "name: parrot\ninputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n"
                             "    rules: [{match: 'Say: (?P<q>.*)$', reply: 'Final Answer: {{ q }}'}]\n"
                             "agent: {prompt: 'Say: {{ input }}'}\n");
  s.server->reload();
  auto invoke = s.post("/v1/workflows/parrot/invoke", std::string("{\"input\": \"the key ") + kServeSecret + "\"}");
  REQUIRE(invoke);
  CHECK(invoke->status == 200);
  CHECK(body_of(invoke)["output"] == "the key ***");
  auto streamed = s.post("/v1/workflows/parrot/stream", std::string("{\"input\": \"the key ") + kServeSecret + "\"}");
  REQUIRE(streamed);
  CHECK_FALSE(test::holds_piece_of_key(streamed->body, kServeSecret));
  CHECK(streamed->body.find("\"output\":\"the key ***\"") != std::string::npos);
}

TEST_CASE("serve: reload takes a changed workflow, and keeps the old one when the new file is broken",
          "[server][serve][reload]") {
  Served s;
  std::string changed = kStepsWorkflow;
  changed.replace(changed.find("name: shout"), 11, "name: shout\ndescription: louder");
  s.dir.write("shout.yaml", changed);
  CHECK(s.server->reload().empty());
  CHECK(s.server->catalog()->find("shout")->executor->description() == "louder");
  s.dir.write("echo.yaml", "name: echo\nllm: [not, a, mapping\n");
  std::vector<std::string> problems = s.server->reload();
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("echo.yaml:") != std::string::npos);
  CHECK(problems[0].find("served still") != std::string::npos);
  auto r = s.post("/v1/workflows/echo/invoke", R"({"input": "still here"})");
  REQUIRE(r);
  CHECK(body_of(r)["output"] == "you said still here plainly");
}

TEST_CASE("serve: a folder with two workflows of one name, or none, cannot be served", "[server][serve]") {
  test::TempDir dir;
  std::vector<std::string> problems;
  ServeOptions options;
  options.port = 0;
  options.paths = {dir.path().string()};
  CHECK_THROWS_WITH(Server(options, problems), Catch::Contains("no workflow to serve"));
  dir.write("a.yaml", kStepsWorkflow);
  dir.write("b.yaml", kStepsWorkflow);
  CHECK_THROWS_WITH(Server(options, problems), Catch::Contains("two workflows are named 'shout'"));
  options.paths = {(dir.path() / "missing.yaml").string()};
  CHECK_THROWS_WITH(Server(options, problems), Catch::Contains("missing.yaml"));
}

TEST_CASE("serve: shutdown lets a run in flight finish within the grace period, then readyz says draining",
          "[server][serve][shutdown]") {
  ServeOptions options;
  options.grace = 10s;
  Served s(options);
  Answer slow;
  std::thread client([&] { slow = post_from_thread(s.server->port(), "/v1/workflows/slow/invoke", R"({"input": "x"})"); });
  REQUIRE(test::wait_until([&] { return s.server->running_runs() == 1; }));
  CHECK(s.server->shutdown() == 0);
  client.join();
  CHECK(slow.status == 200);
  CHECK(parse_json(slow.body)["output"] == "late");
}

TEST_CASE("serve: shutdown past the grace period cancels the runs still going", "[server][serve][shutdown]") {
  ServeOptions options;
  options.grace = 0s;
  Served s(options, 60000);  // a run that would answer in a minute: its answer here can only be the cancel's
  Answer slow;
  std::thread client([&] { slow = post_from_thread(s.server->port(), "/v1/workflows/slow/invoke", R"({"input": "x"})"); });
  REQUIRE(test::wait_until([&] { return s.server->running_runs() == 1; }));
  CHECK(s.server->shutdown() == 1);
  client.join();
  CHECK(slow.status == 503);
  CHECK(parse_json(slow.body)["error"]["code"] == "run.cancelled");
}

TEST_CASE("serve: /metrics reports requests, runs, latencies, tokens and errors in Prometheus's text format",
          "[server][serve][metrics]") {
  ServeOptions options;
  options.service.run_timeout = 1s;
  Served s(options);
  REQUIRE(s.post("/v1/workflows/echo/invoke", R"({"input": "a"})"));
  REQUIRE(s.post("/v1/workflows/echo/invoke", R"({"input": "b"})"));
  REQUIRE(s.post("/v1/workflows/slow/invoke", R"({"input": "c"})"));  // past its time: run.timeout
  REQUIRE(s.post("/v1/workflows/nope/invoke", "{}"));
  auto r = s.client->Get("/metrics");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type") == "text/plain; version=0.0.4");
  const std::string& m = r->body;
  for (const char* line : {"engine_http_requests_total{endpoint=\"invoke\",status=\"200\"} 2\n",
                           "engine_http_requests_total{endpoint=\"invoke\",status=\"504\"} 1\n",
                           "engine_http_requests_total{endpoint=\"invoke\",status=\"404\"} 1\n",
                           "engine_runs_in_flight 0\n",
                           "engine_run_duration_seconds_count{workflow=\"echo\"} 2\n",
                           "engine_model_call_duration_seconds_count{workflow=\"echo\"} 2\n",
                           "engine_run_duration_seconds_bucket{workflow=\"echo\",le=\"+Inf\"} 2\n",
                           "engine_runs_total{workflow=\"echo\",stopped_reason=\"finish\"} 2\n",
                           "engine_runs_total{workflow=\"slow\",stopped_reason=\"timeout\"} 1\n",
                           "engine_run_errors_total{workflow=\"slow\",kind=\"run.timeout\"} 1\n",
                           "# TYPE engine_run_duration_seconds histogram\n"}) {
    INFO(line);
    CHECK(m.find(line) != std::string::npos);
  }
  CHECK(m.find("engine_tokens_total{workflow=\"echo\",kind=\"prompt\"} ") != std::string::npos);
  CHECK(m.find("nope") == std::string::npos);  // a path nobody serves is no label
}

TEST_CASE("serve: POST /mcp answers a request with JSON, a notification with 202, and a call as SSE when accepted",
          "[server][serve][mcp]") {
  Served s;
  auto listed = s.post("/mcp", R"({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})");
  REQUIRE(listed);
  CHECK(listed->status == 200);
  CHECK(listed->get_header_value("Content-Type") == "application/json");
  CHECK(body_of(listed)["result"]["tools"].size() == 3);
  auto note = s.post("/mcp", R"({"jsonrpc": "2.0", "method": "notifications/initialized"})");
  REQUIRE(note);
  CHECK(note->status == 202);
  auto call = s.client->Post("/mcp", {{"Accept", "application/json, text/event-stream"}},
                             R"({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                 "params": {"name": "echo", "arguments": {"input": "hi"}, "_meta": {"progressToken": 5}}})",
                             "application/json");
  REQUIRE(call);
  CHECK(call->status == 200);
  CHECK(call->get_header_value("Content-Type") == "text/event-stream");
  CHECK(call->body.find("\"method\":\"notifications/progress\"") != std::string::npos);
  CHECK(call->body.find("\"text\":\"you said hi plainly\"") != std::string::npos);
  CHECK(call->body.find("\"method\":\"notifications/progress\"") < call->body.find("\"id\":2"));
  auto bad = s.post("/mcp", "{\"jsonrpc\": ");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK(body_of(bad)["error"]["code"] == -32700);
  auto get = s.client->Get("/mcp");
  REQUIRE(get);
  CHECK(get->status == 405);
}

TEST_CASE("serve: with a collector, each request is a SERVER span in the caller's trace and its runs' spans are under it, masked", "[server][serve][otlp]") {
  test::OtlpReceiver receiver;
  ServeOptions options;
  options.otlp = trace::otlp_settings(receiver.base_url(), [](const char*) -> const char* { return nullptr; });
  options.otlp->interval = 20ms;
  options.otlp->content.enabled = true;  // the prompts too: the key in them must be masked all the same
  Served s(options);
  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736", caller_span = "00f067aa0ba902b7";
  httplib::Headers traced{{"traceparent", "00-" + caller_trace + "-" + caller_span + "-01"}};
  std::string input = std::string("echo ") + kServeSecret;
  auto invoke = s.client->Post("/v1/workflows/echo/invoke", traced, "{\"input\": \"" + input + "\"}", "application/json");
  REQUIRE(invoke);
  CHECK(invoke->status == 200);
  auto batch = s.client->Post("/v1/workflows/shout/batch", traced, R"({"inputs": [{"text": "a"}, {"text": "b"}]})",
                              "application/json");
  REQUIRE(batch);
  CHECK(batch->status == 200);
  auto unsampled = s.client->Post("/v1/workflows/shout/invoke", {{"traceparent", "00-" + caller_trace + "-" + caller_span + "-00"}},
                                  R"({"text": "unseen"})", "application/json");
  auto own = s.post("/v1/chat/completions", R"({"model": "echo", "messages": [{"role": "user", "content": "hi"}]})");
  REQUIRE(own);
  CHECK(own->status == 200);
  s.server->shutdown();
  auto counts = s.server->finish_spans();
  REQUIRE(counts);
  CHECK(counts->dropped == 0);

  std::vector<Value> spans = receiver.spans();
  std::map<std::string, const Value*> requests;  // span id -> a request's SERVER span
  for (const Value& span : spans)
    if (span["kind"] == 2) requests[span["spanId"].get<std::string>()] = &span;
  REQUIRE(requests.size() == 3);  // the invoke, the batch and the chat; not the unsampled invoke
  std::map<std::string, int> names;
  for (const auto& [id, request] : requests) {
    std::string name = (*request)["name"];
    ++names[name];
    auto attributes = test::OtlpReceiver::attributes(*request);
    CHECK(attributes["http.request.method"]["stringValue"] == "POST");
    CHECK(attributes["http.response.status_code"]["intValue"] == "200");
    if (name == "POST /v1/chat/completions") {
      CHECK_FALSE(request->contains("parentSpanId"));  // asked without a traceparent: a trace of its own
    } else {
      CHECK((*request)["traceId"] == caller_trace);
      CHECK((*request)["parentSpanId"] == caller_span);  // the caller's span holds the request
    }
  }
  CHECK(names == std::map<std::string, int>{{"POST /v1/chat/completions", 1},
                                            {"POST /v1/workflows/{name}/batch", 1},
                                            {"POST /v1/workflows/{name}/invoke", 1}});
  std::vector<const Value*> roots;
  for (const Value& span : spans)
    if (span["name"].get<std::string>().rfind("invoke_workflow ", 0) == 0) roots.push_back(&span);
  REQUIRE(roots.size() == 4);  // echo, the batch's two shouts, and the chat; not the unsampled run
  for (const Value* root : roots) {
    auto request = requests.find((*root)["parentSpanId"].get<std::string>());
    REQUIRE(request != requests.end());  // each run under its request's span, in its trace
    CHECK((*root)["traceId"] == (*request->second)["traceId"]);
    CHECK(((*root)["flags"].get<int>() & 0x200) == 0);  // a parent of this process, not a remote one
  }
  std::string all;
  for (const Value& span : spans) all += span.dump();
  CHECK(all.find("unseen") == std::string::npos);
  CHECK(all.find("echo ***") != std::string::npos);  // the prompt was sent, with the key masked
  CHECK_FALSE(test::holds_piece_of_key(all, kServeSecret));
}

TEST_CASE("serve: without a collector a request's traceparent still goes on to the model, under an id of the call's", "[server][serve][otlp]") {
  test::MockLlmServer model;
  model.enqueue(test::MockLlmServer::chat("Final Answer: traced"));
  model.enqueue(test::MockLlmServer::chat("Final Answer: untraced"));
  ::setenv("OPENAI_BASE_URL", model.base_url().c_str(), 1);
  ::setenv("OPENAI_API_KEY", "sk-serve-trace-key-0123456789", 1);
  ServeOptions options;
  options.load.llm = "openai:test-model";
  Served s(options);
  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736", caller_span = "00f067aa0ba902b7";
  auto traced = s.client->Post("/v1/workflows/echo/invoke", {{"traceparent", "00-" + caller_trace + "-" + caller_span + "-01"}},
                               R"({"input": "hi"})", "application/json");
  auto untraced = s.post("/v1/workflows/echo/invoke", R"({"input": "hi"})");
  ::unsetenv("OPENAI_BASE_URL");
  ::unsetenv("OPENAI_API_KEY");
  REQUIRE(traced);
  CHECK(body_of(traced)["output"] == "traced");
  REQUIRE(untraced);
  CHECK(body_of(untraced)["output"] == "untraced");
  auto requests = model.requests();
  REQUIRE(requests.size() == 2);
  const std::string& forwarded = requests[0].traceparent;
  CHECK(forwarded.rfind("00-" + caller_trace + "-", 0) == 0);  // the caller's trace
  CHECK(forwarded.size() == 55);
  CHECK(forwarded.find(caller_span) == std::string::npos);     // under the call's own id
  CHECK(forwarded.substr(53) == "01");                         // sampled, as the caller said
  CHECK(requests[1].traceparent.empty());                      // nothing to go on: none sent
}

TEST_CASE("serve: each run served is recorded in the run store, masked", "[server][serve][runs]") {
  test::TempDir store_dir;
  ServeOptions options;
  options.store = store_dir.path() / "runs.db";
  Served s(options);
  std::string input = std::string("echo ") + kServeSecret;
  auto invoke = s.post("/v1/workflows/echo/invoke", "{\"input\": \"" + input + "\"}");
  REQUIRE(invoke);
  auto chat = s.post("/v1/chat/completions", R"({"model": "echo", "messages": [{"role": "user", "content": "hi"}]})");
  REQUIRE(chat);
  auto batch = s.post("/v1/workflows/shout/batch", R"({"inputs": [{"text": "a"}, {"text": "b"}]})");
  REQUIRE(batch);
  auto tool = s.post("/mcp", R"({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "shout", "arguments": {"text": "c"}}})");
  REQUIRE(tool);
  CHECK(tool->body.find("\"isError\":false") != std::string::npos);
  s.server->shutdown();
  store::RunStore store(store_dir.path() / "runs.db");
  auto runs = store.list({});
  REQUIRE(runs.size() == 5);
  CHECK(runs.front().command == "mcp");  // the newest: a tool call of POST /mcp
  runs.erase(runs.begin());
  for (const auto& r : runs) {
    CHECK(r.command == "serve");
    CHECK(r.status == "ok");
    CHECK(r.source.ends_with(".yaml"));
  }
  std::string id = Value::parse(invoke->body)["run_id"];
  auto echo = store.find(id);
  REQUIRE(echo);
  CHECK(echo->workflow == "echo");
  CHECK(echo->inputs["input"] == "echo ***");
  for (const auto& line : echo->events) CHECK_FALSE(test::holds_piece_of_key(line, kServeSecret));
}

// A model whose ReAct answer streams for half a minute: a word every 100 ms, 300 of them.
test::MockLlmServer::Reply endless_answer() {
  test::MockLlmServer::Reply endless = test::MockLlmServer::chat_stream({"Thought: long.\nFinal Answer: "});
  std::vector<std::string> words(300, test::MockLlmServer::chat_delta("word "));
  endless.pieces.insert(endless.pieces.begin() + 2, words.begin(), words.end());
  endless.piece_delay_ms = 100;
  return endless;
}

// The served folder's workflows answered by `model` (OPENAI_BASE_URL and the key set while it is built).
std::unique_ptr<Served> served_by(const test::MockLlmServer& model, ServeOptions options) {
  ::setenv("OPENAI_BASE_URL", model.base_url().c_str(), 1);
  ::setenv("OPENAI_API_KEY", "sk-serve-stream-key-0123456789", 1);
  options.load.llm = "openai:test-model";
  auto served = std::make_unique<Served>(options);
  ::unsetenv("OPENAI_BASE_URL");
  ::unsetenv("OPENAI_API_KEY");
  return served;
}

const char* const kStreamedChat = R"({"model": "echo", "stream": true, "messages": [{"role": "user", "content": "hi"}]})";

size_t words_in(const std::string& body) {
  size_t words = 0;
  for (size_t at = 0; (at = body.find("word", at)) != std::string::npos; at += 4) ++words;
  return words;
}

// Whether the server's run slots are all free within a few seconds: a run stops with what cancelled it.
bool slots_free(Served& s) { return test::wait_until([&] { return s.server->running_runs() == 0; }, 5000); }

TEST_CASE("serve: a streamed chat completion whose model streams on past the run's time limit ends with run.timeout",
          "[server][serve][openai][limits]") {
  test::MockLlmServer model;
  model.enqueue(endless_answer());
  ServeOptions options;
  options.service.run_timeout = 1s;
  auto s = served_by(model, options);
  auto r = s->post("/v1/chat/completions", kStreamedChat);
  REQUIRE(r);
  INFO(r->body.substr(0, 2000));
  CHECK(r->body.find(R"("code":"run.timeout")") != std::string::npos);
  CHECK(words_in(r->body) < 300);  // cut before the model's answer ended
  CHECK(slots_free(*s));
}

TEST_CASE("serve: a client that leaves a streamed chat completion frees its run slot while the model still writes",
          "[server][serve][openai][cancel]") {
  test::MockLlmServer model;
  model.enqueue(endless_answer());
  auto s = served_by(model, {});
  httplib::Client client("127.0.0.1", s->server->port());
  std::atomic<int> words{0};
  // The client reads until the answer's words come, then gives up.
  httplib::Request request;
  request.method = "POST";
  request.path = "/v1/chat/completions";
  request.body = kStreamedChat;
  request.set_header("Content-Type", "application/json");
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    words += static_cast<int>(words_in(std::string(data, length)));
    return words < 3;
  };
  client.send(request);
  CHECK(words >= 3);
  CHECK(slots_free(*s));
  CHECK(words < 300);
}

TEST_CASE("serve: a shutdown past its grace cancels a streamed chat completion, which ends with an error event",
          "[server][serve][openai][shutdown]") {
  test::MockLlmServer model;
  model.enqueue(endless_answer());
  ServeOptions options;
  options.grace = 1s;
  auto s = served_by(model, options);
  std::string body;
  std::thread streaming([&] {
    httplib::Client client("127.0.0.1", s->server->port());
    client.set_read_timeout(60, 0);
    auto r = client.Post("/v1/chat/completions", kStreamedChat, "application/json");
    if (r) body = r->body;
  });
  // Once the run is under way (a model request made), the server is told to stop.
  REQUIRE(test::wait_until([&] { return !model.requests().empty(); }));
  REQUIRE(model.requests().size() == 1);
  CHECK(s->server->shutdown() == 1);  // the one run still going when the grace ran out
  streaming.join();
  INFO(body.substr(0, 2000));
  CHECK(body.find(R"("code":"run.cancelled")") != std::string::npos);
  CHECK(words_in(body) < 300);
}

TEST_CASE("serve: a batch's inputs are runs under the server's slots: one at a time at --runs 1, past room a 429",
          "[server][serve][limits]") {
  ServeOptions options;
  options.service.runs_in_flight = 1;
  options.service.runs_queued = 4;
  Served s(options, 300);
  std::string body;
  std::thread batch([&] {
    httplib::Client c("127.0.0.1", s.server->port());
    c.set_read_timeout(30, 0);
    auto r = c.Post("/v1/workflows/slow/batch", R"({"inputs": [{"input": "a"}, {"input": "b"}, {"input": "c"}]})",
                    "application/json");
    if (r) body = r->body;
  });
  // Seen at once: one run going and two waiting for the slot.
  CHECK(test::wait_until([&] { return s.server->running_runs() == 3; }));
  // The room left is 2: a batch of three more is turned away whole.
  auto full = s.post("/v1/workflows/shout/batch", R"({"inputs": [{"text": "a"}, {"text": "b"}, {"text": "c"}]})");
  REQUIRE(full);
  CHECK(full->status == 429);
  CHECK(body_of(full)["error"]["code"] == "too_many_runs");
  batch.join();
  Value results = parse_json(body)["results"];
  REQUIRE(results.size() == 3);
  for (const Value& r : results) CHECK(r["output"] == "late");
  // One larger than the server could ever hold is a 400 saying so.
  auto never = s.post("/v1/workflows/shout/batch", R"({"inputs": [{"text": "1"}, {"text": "2"}, {"text": "3"},
                                                                 {"text": "4"}, {"text": "5"}, {"text": "6"}]})");
  REQUIRE(never);
  CHECK(never->status == 400);
  CHECK(body_of(never)["error"]["message"] ==
        "this server takes at most 5 runs at once (--runs plus --queue); a batch of 6 can never be taken");
}

TEST_CASE("serve: a workflow of steps with an input named input is a chat model, run on the last message alone",
          "[server][serve][openai]") {
  Served s;
  s.dir.write("steps_chat.yaml", R"(name: steps_chat
inputs: {input: {}}
llm:
  provider: scripted
  scripted:
    rules: [{match: 'Shout: (?P<t>.*)$', reply: '{{ t | upper }}'}]
steps:
  shout: {kind: llm, prompt: 'Shout: {{ input }}'}
)");
  CHECK(s.server->reload().empty());
  auto models = s.client->Get("/v1/models");
  REQUIRE(models);
  Value ids = Value::array();
  Value listed = body_of(models);
  for (const Value& m : listed["data"]) ids.push_back(m["id"]);
  CHECK(ids == Value::array({"echo", "slow", "steps_chat"}));
  auto r = s.post("/v1/chat/completions", R"({"model": "steps_chat", "messages": [
      {"role": "user", "content": "earlier"}, {"role": "assistant", "content": "EARLIER"},
      {"role": "user", "content": "now then"}]})");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(body_of(r)["choices"][0]["message"]["content"] == "NOW THEN");
  auto streamed = s.post("/v1/chat/completions",
                         R"({"model": "steps_chat", "stream": true, "messages": [{"role": "user", "content": "hi"}]})");
  REQUIRE(streamed);
  bool done = false;
  std::string content;
  for (const Value& c : chat_chunks(streamed->body, done))
    if (!c["choices"].empty() && c["choices"][0]["delta"].contains("content"))
      content += c["choices"][0]["delta"]["content"].get<std::string>();
  CHECK(content == "HI");
  CHECK(done);
}

TEST_CASE("serve: POST /mcp checks a 2026-07-28 request's revision, envelope, headers and method before dispatch",
          "[server][serve][mcp]") {
  Served s;
  auto post = [&](const std::string& method, Value params, httplib::Headers headers) {
    Value message{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
    auto r = s.client->Post("/mcp", headers, to_json_text(message), "application/json");
    REQUIRE(r);
    return std::pair<int, Value>(r->status, parse_json(r->body));
  };
  Value meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
             {"io.modelcontextprotocol/clientCapabilities", Value::object()}};
  httplib::Headers standard{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}};
  auto ok = post("tools/list", {{"_meta", meta}}, standard);
  CHECK(ok.first == 200);
  CHECK(ok.second["result"]["tools"].size() == 3);
  // A revision the server does not speak: 400, -32022 naming those it does.
  Value other = meta;
  other["io.modelcontextprotocol/protocolVersion"] = "2099-01-01";
  // (the header agreeing with the body: a header that disagrees is -32020 first, below)
  auto unsupported = post("tools/list", {{"_meta", other}}, {{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}});
  CHECK(unsupported.first == 400);
  CHECK(unsupported.second["error"] == Value{{"code", -32022}, {"message", "Unsupported protocol version: 2099-01-01"},
                                             {"data", {{"supported", Value::array({"2026-07-28"})}, {"requested", "2099-01-01"}}}});
  // An envelope without its required keys: 400, -32602.
  auto bare = post("tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}, standard);
  CHECK(bare.first == 400);
  CHECK(bare.second["error"]["code"] == -32602);
  // The standard headers: missing or disagreeing with the body, 400 and -32020.
  for (const httplib::Headers& wrong :
       {httplib::Headers{{"Mcp-Method", "tools/list"}}, httplib::Headers{{"MCP-Protocol-Version", "2026-07-28"}},
        httplib::Headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}},
        httplib::Headers{{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "tools/list"}}}) {
    INFO(to_json_text(Value(wrong.size())));
    auto refused = post("tools/list", {{"_meta", meta}}, wrong);
    CHECK(refused.first == 400);
    CHECK(refused.second["error"]["code"] == -32020);
  }
  auto misnamed = post("tools/call", {{"_meta", meta}, {"name", "echo"}, {"arguments", {{"input", "x"}}}},
                       {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "shout"}});
  CHECK(misnamed.first == 400);
  CHECK(misnamed.second["error"] == Value{{"code", -32020}, {"message", "the Mcp-Name header (shout) disagrees with the tool the body names"}});
  // A method 2026-07-28 does not have (initialize among them): 404, -32601.
  for (const char* method : {"resources/list", "initialize", "ping"}) {
    auto missing = post(method, {{"_meta", meta}}, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}});
    CHECK(missing.first == 404);
    CHECK(missing.second["error"]["code"] == -32601);
  }
  // The 2025 era: a revision header the server does not know is refused; one naming 2026-07-28 needs the envelope.
  auto unknown = post("tools/list", Value::object(), {{"MCP-Protocol-Version", "1999-01-01"}});
  CHECK(unknown.first == 400);
  CHECK(unknown.second["error"]["code"] == -32022);
  auto no_envelope = post("tools/list", Value::object(), {{"MCP-Protocol-Version", "2026-07-28"}});
  CHECK(no_envelope.first == 400);
  CHECK(no_envelope.second["error"]["code"] == -32602);
  auto legacy = post("tools/list", Value::object(), {{"MCP-Protocol-Version", "2025-06-18"}});
  CHECK(legacy.first == 200);
}
