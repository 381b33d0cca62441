// `engine serve` keeps its runs (docs/serve.md, "Runs that outlive a request"): a run asked for with Prefer:
// respond-async is answered 202 and followed at /v1/runs/ID; a request sent again with its Idempotency-Key finds its
// run, going, ended, or cut by a killed server; a server started again resumes the asynchronous runs it had.
#include <catch2/catch.hpp>
#include <httplib.h>

#include <csignal>
#include <optional>
#include <thread>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "support/effect_service.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// `orders` sends effect send_WHO (a POST: effect once) and then, once that is done, reads /effects/slow, which waits for the service's
// release; `risky` is killed inside its POST to /effects/slow. Each entry is on disk before the run goes on
// (durability: sync), so a kill finds each effect's result journaled.
void write_served_workflows(const test::TempDir& dir, const std::string& service) {
  std::string tools = "tools:\n"
                      "  - builtin: http_request\n    name: post_effect\n"
                      "    allow: {http: [{url: \"" + service + "/effects/\", methods: [POST]}]}\n"
                      "  - builtin: http_request\n    name: read_effect\n"
                      "    allow: {http: [{url: \"" + service + "/effects/\", methods: [GET]}]}\n";
  dir.write("orders.yaml",
            "version: 1\nname: orders\ndurability: sync\ninputs:\n  who: {}\n" + tools +
            "steps:\n"
            "  send:\n    kind: tool\n    tool: post_effect\n    input: '{\"method\": \"POST\", \"path\": \"send_{{ inputs.who }}\"}'\n"
            "  wait:\n    kind: tool\n    tool: read_effect\n    when: \"steps.send.status == 'done'\"\n"
            "    input: '{\"path\": \"slow\"}'\n"
            "outputs:\n  sent:\n    value: \"{{ inputs.who }} sent {{ steps.send.output.body.count }}\"\n");
  dir.write("risky.yaml",
            "version: 1\nname: risky\ndurability: sync\n" + tools +
            "steps:\n"
            "  charge:\n    kind: tool\n    tool: post_effect\n    input: '{\"method\": \"POST\", \"path\": \"slow\"}'\n");
}

// `engine serve` of the folder with the store given, on a port of its own.
struct DurableServer {
  int port = test::free_port();
  std::unique_ptr<test::EngineProcess> process;

  DurableServer(const test::TempDir& dir, const std::string& flags) {
    process = std::make_unique<test::EngineProcess>("serve " + test::shell_quote(dir.path().string()) + " -q --port " +
                                                    std::to_string(port) + " " + flags);
    REQUIRE(test::wait_until_listening(port));
  }
  httplib::Result invoke(const std::string& workflow, const std::string& body, const httplib::Headers& headers) const {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60);
    return client.Post("/v1/workflows/" + workflow + "/invoke", headers, body, "application/json");
  }
  Value run(const std::string& id) const {
    httplib::Client client("127.0.0.1", port);
    auto r = client.Get("/v1/runs/" + id);
    REQUIRE(r);
    REQUIRE(r->status == 200);
    return parse_json(r->body);
  }
  void kill() const {
    process->signal(SIGKILL);
    process->wait();
  }
};

const httplib::Headers kAsync{{"Prefer", "respond-async"}};

httplib::Headers with_key(const std::string& key, bool async = false) {
  httplib::Headers h{{"Idempotency-Key", key}};
  if (async) h.emplace("Prefer", "respond-async");
  return h;
}

std::string store_flag(const test::TempDir& dir) { return "--store " + test::shell_quote((dir.path() / "runs.db").string()); }

}  // namespace

TEST_CASE("durable serve e2e: respond-async answers 202 with the run's id, and the same key finds the same run going "
          "and ended", "[e2e][durable][serve]") {
  test::EffectService service;
  test::TempDir dir;
  write_served_workflows(dir, service.base());
  DurableServer server(dir, store_flag(dir));

  auto accepted = server.invoke("orders", R"({"who": "a"})", with_key("order-1", true));
  REQUIRE(accepted);
  CHECK(accepted->status == 202);
  Value body = parse_json(accepted->body);
  std::string id = body.value("run_id", "");
  REQUIRE(id.size() == 16);
  CHECK(body == Value{{"run_id", id}, {"status", "running"}});
  CHECK(accepted->get_header_value("Location") == "/v1/runs/" + id);
  CHECK(accepted->get_header_value("Preference-Applied") == "respond-async");

  // Going: it waits at /effects/slow, its first step's output journaled.
  REQUIRE(test::wait_until([&] { return service.slow_waiting() == 1; }));
  Value going = server.run(id);
  CHECK(going["status"] == "running");
  CHECK(going["command"] == "serve-async");
  CHECK(going["inputs"] == Value{{"who", "a"}});
  REQUIRE(going["steps"].size() == 1);
  CHECK(going["steps"][0]["step"] == "send");
  CHECK(going["steps"][0]["output"]["body"] == Value{{"key", "send_a"}, {"count", 1}});

  // The same request again, asynchronous: the same run. Synchronous: it waits for that run's answer.
  auto again = server.invoke("orders", R"({"who": "a"})", with_key("order-1", true));
  REQUIRE(again);
  CHECK(again->status == 202);
  CHECK(parse_json(again->body)["run_id"] == id);
  std::optional<httplib::Result> waited;
  std::thread waiter([&] { waited.emplace(server.invoke("orders", R"({"who": "a"})", with_key("order-1"))); });
  // Were it not waiting for that run, a run of its own would send send_a again.
  service.release();
  waiter.join();
  REQUIRE((waited && *waited));
  CHECK((*waited)->status == 200);
  Value answer = parse_json((*waited)->body);
  CHECK(answer["run_id"] == id);
  CHECK(answer["outputs"] == Value{{"sent", "a sent 1"}});

  // Ended: the run's record, and the same answer again without running it.
  REQUIRE(test::wait_until([&] { return server.run(id)["status"] == "ok"; }));
  CHECK(server.run(id)["output"] == "a sent 1");
  auto ended = server.invoke("orders", R"({"who": "a"})", with_key("order-1"));
  REQUIRE(ended);
  CHECK(ended->status == 200);
  CHECK(parse_json(ended->body) == answer);
  CHECK(service.count("send_a") == 1);
  CHECK(service.keys_sent("send_a").size() == 1);

  // A key names one run: sent with other inputs, refused.
  auto reused = server.invoke("orders", R"({"who": "b"})", with_key("order-1"));
  REQUIRE(reused);
  CHECK(reused->status == 422);
  CHECK(parse_json(reused->body) ==
        Value{{"error", {{"message", "the Idempotency-Key was sent before with other inputs (run " +
                                         id + "): a key names one run"},
                         {"type", "invalid_request_error"},
                         {"param", nullptr},
                         {"code", "serve.key_reused"}}}});
  auto too_long = server.invoke("orders", R"({"who": "a"})", with_key(std::string(256, 'k')));
  REQUIRE(too_long);
  CHECK(too_long->status == 400);
  CHECK(parse_json(too_long->body)["error"]["message"] ==
        "the Idempotency-Key header is 1 to 255 printable ASCII characters");
  CHECK(service.counts() == std::map<std::string, int>{{"send_a", 1}});
}

TEST_CASE("durable serve e2e: a server killed mid-run resumes its asynchronous runs when started again, and a "
          "synchronous request cut by the kill finds its run by its key, each effect once", "[e2e][durable][serve]") {
  test::EffectService service;
  test::TempDir dir;
  write_served_workflows(dir, service.base());
  std::string id_a;
  {
    DurableServer server(dir, store_flag(dir));
    auto accepted = server.invoke("orders", R"({"who": "a"})", kAsync);
    REQUIRE(accepted);
    REQUIRE(accepted->status == 202);
    id_a = parse_json(accepted->body)["run_id"];
    std::thread cut([&] { server.invoke("orders", R"({"who": "b"})", with_key("order-b")); });
    REQUIRE(test::wait_until([&] { return service.slow_waiting() == 2; }));
    server.kill();
    cut.join();
  }
  service.release();  // what is asked of /effects/slow from now on answers at once
  CHECK(service.counts() == std::map<std::string, int>{{"send_a", 1}, {"send_b", 1}});

  DurableServer again(dir, store_flag(dir));
  std::string said = "engine serve: resumed 1 unfinished run asked for asynchronously (" + id_a + ")";
  REQUIRE(test::wait_until([&] { return again.process->err_so_far().find(said) != std::string::npos; }));
  REQUIRE(test::wait_until([&] { return again.run(id_a)["status"] == "ok"; }));
  CHECK(again.run(id_a)["output"] == "a sent 1");

  // Not resumed by itself (its caller had gone): the same request again resumes it and is answered.
  auto retried = again.invoke("orders", R"({"who": "b"})", with_key("order-b"));
  REQUIRE(retried);
  INFO(retried->body);
  CHECK(retried->status == 200);
  CHECK(parse_json(retried->body)["outputs"] == Value{{"sent", "b sent 1"}});
  CHECK(service.counts() == std::map<std::string, int>{{"send_a", 1}, {"send_b", 1}});
}

TEST_CASE("durable serve e2e: a run killed inside an effect is in doubt when resumed, and says so to its key, and without "
          "a store a key is refused and respond-async is not applied", "[e2e][durable][serve]") {
  test::EffectService service;
  test::TempDir dir;
  write_served_workflows(dir, service.base());
  std::string id;
  {
    DurableServer server(dir, store_flag(dir));
    auto accepted = server.invoke("risky", "{}", with_key("charge-1", true));
    REQUIRE(accepted);
    id = parse_json(accepted->body)["run_id"];
    REQUIRE(test::wait_until([&] { return service.slow_waiting() == 1; }));
    server.kill();
  }
  service.release();
  DurableServer again(dir, store_flag(dir));
  REQUIRE(test::wait_until([&] { return again.run(id)["status"] == "failed"; }));
  CHECK(again.run(id)["error"]["kind"] == "journal.in_doubt");
  auto retried = again.invoke("risky", "{}", with_key("charge-1"));
  REQUIRE(retried);
  CHECK(retried->status == 409);
  CHECK(parse_json(retried->body)["error"]["message"] ==
        "run " + id + " stopped at a call whose effect is not known; `engine runs resolve " + id +
            "` lists it and settles it");
  CHECK(service.count("slow") == 1);

  DurableServer plain(dir, "--no-store");
  auto keyed = plain.invoke("orders", R"({"who": "c"})", with_key("order-c"));
  REQUIRE(keyed);
  CHECK(keyed->status == 400);
  CHECK(parse_json(keyed->body)["error"]["message"] ==
        "an Idempotency-Key needs the run store, which this server does not keep (--no-store, or it could not "
        "be opened)");
  auto preferred = plain.invoke("orders", R"({"who": "c"})", kAsync);
  REQUIRE(preferred);
  CHECK(preferred->status == 200);
  CHECK_FALSE(preferred->has_header("Preference-Applied"));
  CHECK(parse_json(preferred->body)["outputs"] == Value{{"sent", "c sent 1"}});
}

TEST_CASE("durable serve e2e: a run cancelled by a shutdown stays unfinished, a changed workflow keeps it from resuming "
          "with a warning and a 409, and engine runs resume --allow-changed ends it", "[e2e][durable][serve]") {
  test::EffectService service;
  test::TempDir dir;
  write_served_workflows(dir, service.base());
  std::string id;
  {
    DurableServer server(dir, store_flag(dir) + " --grace 0");
    auto accepted = server.invoke("orders", R"({"who": "a"})", with_key("order-9", true));
    REQUIRE(accepted);
    id = parse_json(accepted->body)["run_id"];
    REQUIRE(test::wait_until([&] { return service.slow_waiting() == 1; }));
    server.process->signal(SIGTERM);
    CHECK(server.process->wait().exit_code == 0);
  }
  service.release();
  std::filesystem::path file = std::filesystem::absolute(dir.path() / "orders.yaml").lexically_normal();
  dir.write("orders.yaml", read_file(file) + "# changed\n");

  DurableServer again(dir, store_flag(dir));
  std::string warned = "engine: warning: run " + id + "'s workflow changed since it started:\n  " + file.string() +
                       "\n(--allow-changed replays while its recorded calls still match)\n(it is left as it was: "
                       "`engine runs resume " + id + " --allow-changed` goes on with it)\n";
  REQUIRE(test::wait_until([&] { return again.process->err_so_far().find(warned) != std::string::npos; }));
  CHECK(again.run(id)["status"] == "running");
  auto retried = again.invoke("orders", R"({"who": "a"})", with_key("order-9"));
  REQUIRE(retried);
  CHECK(retried->status == 409);
  CHECK(parse_json(retried->body)["error"]["code"] == "journal.changed");

  auto resumed = test::run_engine("runs resume " + id + " --allow-changed -q " + store_flag(dir));
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "a sent 1\n");
  CHECK(again.run(id)["status"] == "ok");
  CHECK(service.counts() == std::map<std::string, int>{{"send_a", 1}});
}
