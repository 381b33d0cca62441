// engine serve as a user runs it: the built engine serving a folder, asked by the official `openai` client from
// npm (tests/peers) and by curl, reloaded by SIGHUP, stopped by SIGTERM with a run in flight.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <httplib.h>
#include <thread>

#include "engine/core/json_parse.h"
#include "support/test_support.h"

using namespace engine;
using namespace std::chrono_literals;

namespace {

const char* const kChatEcho = R"(name: echo
description: Says back what it is told.
inputs:
  input: What to say back
llm:
  provider: scripted
  scripted:
    rules:
      - match: '(?s)Earlier: (?P<h>.*)\nNow: (?P<q>[^\n]*)\n$'
        reply: "Thought: I am to say it back.\nFinal Answer: you said {{ q }}{% if h %} after: {{ h }}{% endif %}"
agent:
  kind: react
  prompt: "Earlier: {{ history_text | replace('\n', ' | ') }}\nNow: {{ input }}\n{{ agent_scratchpad }}"
  memory: {kind: full}
)";

const char* const kBroken = R"(name: broken
inputs:
  input: q
llm:
  provider: scripted
  max_retries: 0
  scripted: {fail: {status: 500, times: 100}, replies: ['Final Answer: never']}
agent:
  kind: react
  prompt: "{{ input }}\n{{ agent_scratchpad }}"
)";

// `engine serve` of a folder of these workflows on a free port, until the test ends.
struct ServedFolder {
  test::TempDir dir;
  int port = test::free_port();
  std::unique_ptr<test::EngineProcess> process;

  explicit ServedFolder(const std::string& flags = "", const std::string& env = "") {
    dir.write("echo.yaml", kChatEcho);
    dir.write("slow.yaml", test::slow_workflow(30000));
    dir.write("broken.yaml", kBroken);
    process = std::make_unique<test::EngineProcess>(
        "serve " + test::shell_quote(dir.path().string()) + " --port " + std::to_string(port) + " --heartbeat 0.2 " +
            flags,
        env);
    REQUIRE(test::wait_until_listening(port));
  }
  // Whether the server's stderr says `text` within a few seconds: lines are written after what they report is served.
  bool logs(const std::string& text) const {
    for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until;) {
      if (process->err_so_far().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port) + "/v1"; }

  // The openai client's scenario (tests/peers/openai_client.mjs), as the JSON line it printed.
  Value openai(const std::string& scenario, const std::string& model = "echo", const std::string& key = "") const {
    test::CommandResult r = test::run_command("node tests/peers/openai_client.mjs " + base_url() + " " + scenario + " " +
                                              model + (key.empty() ? "" : " " + key));
    INFO(r.out << r.err);
    Value v = parse_json(r.out);
    REQUIRE(v.is_object());
    return v;
  }
};

}  // namespace

TEST_CASE("serve e2e: the official openai client lists the models and completes a chat", "[e2e][serve][openai]") {
  test::require_npm_peers();
  ServedFolder served;
  Value models = served.openai("models");
  CHECK(models["ids"] == Value::array({"broken", "echo", "slow"}));
  // Each model was created when its file was last written: a real time, not 0.
  for (const Value& created : models["created"]) CHECK(created.get<long>() > 1700000000);
  Value echo = served.openai("retrieve");
  CHECK(echo["id"] == "echo");
  CHECK(echo["object"] == "model");
  CHECK(echo["owned_by"] == "engine");
  CHECK(echo["created"] == models["created"][1]);
  CHECK(echo["missing"] == Value{{"status", 404}, {"class", "NotFoundError"}, {"code", "model_not_found"}});
  Value done = served.openai("complete");
  CHECK(done["content"] == "you said What is 6 * 7?");
  CHECK(done["finish"] == "stop");
  CHECK(done["object"] == "chat.completion");
  CHECK(done["usage"]["total_tokens"].get<int>() > 0);
  CHECK(done["request_id"].is_string());
  Value history = served.openai("history");
  CHECK(history["content"] == "you said What is my name? after: Human: My name is Ada. | AI: Hello Ada!");
}

TEST_CASE("serve e2e: the openai client streams a completion word by word with its usage", "[e2e][serve][openai]") {
  test::require_npm_peers();
  ServedFolder served;
  Value streamed = served.openai("stream");
  CHECK(streamed["content"] == "you said What is 6 * 7?");
  // The role, the answer's words as the model writes them (more than one chunk), the finish, the usage.
  CHECK(streamed["chunks"].get<int>() > 4);
  CHECK(streamed["role"] == "assistant");
  CHECK(streamed["finish"] == "stop");
  CHECK(streamed["usage"]["total_tokens"].get<int>() > 0);
}

TEST_CASE("serve e2e: an unknown model is the client's NotFoundError, a failing model an error mid-stream",
          "[e2e][serve][openai]") {
  test::require_npm_peers();
  ServedFolder served;
  Value missing = served.openai("not_found", "gpt-4o");
  CHECK(missing["error"] == "NotFoundError");
  CHECK(missing["status"] == 404);
  CHECK(missing["code"] == "model_not_found");
  CHECK(missing["param"] == "model");
  Value failed = served.openai("bad_token", "broken");
  CHECK(failed["error"] == "InternalServerError");  // the clients' class for every status from 500
  CHECK(failed["status"] == 502);
  Value mid_stream = served.openai("stream_error", "broken");
  CHECK(mid_stream["error"] == "APIError");
  CHECK(mid_stream["message"].get<std::string>().find("500") != std::string::npos);
}

TEST_CASE("serve e2e: with a token file, the openai client needs the token", "[e2e][serve][openai][auth]") {
  test::require_npm_peers();
  test::TempDir secrets;
  auto file = secrets.write("tokens.txt", "# the clients' tokens\ntok-e2e-0123456789abcdef\n");
  ServedFolder served("--token-file " + test::shell_quote(file.string()));
  Value refused = served.openai("bad_token", "echo", "tok-e2e-wrong-0000000000");
  CHECK(refused["error"] == "AuthenticationError");
  CHECK(refused["status"] == 401);
  Value allowed = served.openai("complete", "echo", "tok-e2e-0123456789abcdef");
  CHECK(allowed["content"] == "you said What is 6 * 7?");
  httplib::Client health("127.0.0.1", served.port);
  auto r = health.Get("/healthz");
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("serve e2e: a client that gives up on a stream cancels its run and frees its slot",
          "[e2e][serve][openai][cancel]") {
  test::require_npm_peers();
  ServedFolder served("--runs 1 --queue 0");
  Value aborted = served.openai("cancel", "slow");
  CHECK(aborted["aborted"] == true);
  // The slow run would hold the only slot for 30 s; cancelled, it frees it within a heartbeat or two.
  httplib::Client client("127.0.0.1", served.port);
  int status = 0;
  for (auto until = std::chrono::steady_clock::now() + 5s; status != 200 && std::chrono::steady_clock::now() < until;) {
    auto r = client.Post("/v1/workflows/echo/invoke", R"({"input": "free?"})", "application/json");
    status = r ? r->status : 0;
    if (status != 200) std::this_thread::sleep_for(100ms);
  }
  CHECK(status == 200);
  CHECK(served.logs("\"client_gone\":true"));
}

TEST_CASE("serve e2e: SIGHUP reloads the folder and SIGTERM lets the run in flight finish before exiting 0",
          "[e2e][serve][signals]") {
  ServedFolder served("--grace 20");
  std::string changed = kChatEcho;
  changed.replace(changed.find("Says back"), 9, "Repeats");
  served.dir.write("echo.yaml", changed);
  served.process->signal(SIGHUP);
  httplib::Client client("127.0.0.1", served.port);
  std::string description;
  for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until;) {
    auto r = client.Get("/v1/workflows");
    REQUIRE(r);
    Value listed = parse_json(r->body);
    for (const Value& w : listed["data"])
      if (w["name"] == "echo") description = w["description"];
    if (description.rfind("Repeats", 0) == 0) break;
    std::this_thread::sleep_for(50ms);
  }
  CHECK(description == "Repeats what it is told.");
  CHECK(served.logs("reloaded 3 workflows"));

  // A run of 2 s in flight when SIGTERM comes: it ends, and is answered, before the process does.
  served.dir.write("slow.yaml", test::slow_workflow(2000));
  served.process->signal(SIGHUP);
  REQUIRE(test::wait_until([&] {  // the second reload done
    std::string err = served.process->err_so_far();
    size_t first = err.find("reloaded 3 workflows");
    return first != std::string::npos && err.find("reloaded 3 workflows", first + 1) != std::string::npos;
  }));
  int status = 0;
  std::string body;
  std::thread in_flight([&] {
    httplib::Client c("127.0.0.1", served.port);
    c.set_read_timeout(20, 0);
    auto r = c.Post("/v1/workflows/slow/invoke", R"({"input": "x"})", "application/json");
    if (r) status = r->status, body = r->body;
  });
  REQUIRE(test::wait_until([&] {  // the run in flight
    httplib::Client c("127.0.0.1", served.port);
    auto m = c.Get("/metrics");
    return m && m->body.find("engine_runs_in_flight 1\n") != std::string::npos;
  }));
  served.process->signal(SIGTERM);
  in_flight.join();
  CHECK(status == 200);
  CHECK(parse_json(body)["output"] == "late");
  test::CommandResult end = served.process->wait();
  CHECK(end.exit_code == 0);
  CHECK(end.err.find("stopping") != std::string::npos);
  // The access log: one JSON line a request, with its id.
  CHECK(end.err.find("\"path\":\"/v1/workflows/slow/invoke\",\"status\":200") != std::string::npos);
}

TEST_CASE("serve e2e: the mock model example serves the calculator through the engine's own openai provider",
          "[e2e][serve][mock]") {
  int port = test::free_port();
  test::EngineProcess mock("serve workflows/mock_model.yaml -q --port " + std::to_string(port));
  REQUIRE(test::wait_until_listening(port));
  std::string env = "OPENAI_BASE_URL=http://127.0.0.1:" + std::to_string(port) + "/v1 OPENAI_API_KEY=unused";
  for (const auto& [question, answer] : std::vector<std::pair<std::string, std::string>>{
           {"What is 12 * 7 + 3?", "87\n"}, {"How much is (3 + 4) * 5?", "35\n"}}) {
    auto r = test::run_engine("run workflows/calculator.yaml -q --llm openai:mock_model --input " +
                                  test::shell_quote(question),
                              "", env);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == answer);
  }
  auto streamed = test::run_engine("run workflows/calculator.yaml --stream --llm openai:mock_model --input 'What is 2 + 2?'",
                                   "", env);
  CHECK(streamed.out == "4\n");
}

TEST_CASE("serve e2e: ten thousand connections opened and left idle do not keep others from being served",
          "[e2e][serve][hostile]") {
  // This process holds the clients' ends: it needs as many descriptors (the server raises its own limit).
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  size_t wanted = 10000;
  size_t n = std::min<size_t>(wanted, limit.rlim_cur > 512 ? limit.rlim_cur - 512 : 0);
  if (n < wanted) WARN("this machine's open-file limit allows " << n << " idle connections, not " << wanted);
  REQUIRE(n >= 1000);
  ServedFolder served("--idle-timeout 60 --max-connections 10050 -q");
  std::vector<int> idle;
  for (size_t i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(served.port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    idle.push_back(fd);
  }
  httplib::Client client("127.0.0.1", served.port);
  client.set_connection_timeout(10, 0);
  auto r = client.Post("/v1/workflows/echo/invoke", R"({"input": "still served"})", "application/json");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(parse_json(r->body)["output"] == "you said still served");
  for (int fd : idle) ::close(fd);
}
