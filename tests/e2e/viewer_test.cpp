// The run viewer in a real browser: `engine ui` serves the page and its API over a store of recorded runs; Debian's
// chromium, driven by playwright-core from npm (tests/peers/viewer_check.mjs), opens a run, reads the waterfall's
// bars, the prompt and reply of a model call, a tool's input and output, a workflow's steps from its journal, compares
// two runs, shows markup from a run as text, and chats with a served workflow. Also the API's answers and refusals, read without a browser.
#include <catch2/catch.hpp>

#include <map>

#include "engine/core/json_parse.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

const char* const kHostile = R"(What is 12 * 7? <img src=x onerror="window.__injected=true">)";

std::string recorded_run(const std::string& store, const std::string& input) {
  auto r = run_engine("run workflows/calculator.yaml --json -q --store " + shell_quote(store) + " --input " +
                      shell_quote(input));
  REQUIRE(r.exit_code == 0);
  return parse_json(r.out)["run_id"];
}

std::string get(int port, const std::string& path, const std::string& headers = "") {
  return run_command("curl -s -w '\\n%{http_code}' " + headers + " " +
                     shell_quote("http://127.0.0.1:" + std::to_string(port) + path)).out;
}

}  // namespace

TEST_CASE("viewer e2e: a stored run opened in chromium: waterfall, prompt, tool, two runs compared, chat", "[e2e][viewer]") {
  test::require_npm_peers();
  INFO("Debian's chromium is not installed: run scripts/setup.sh test");
  REQUIRE(std::filesystem::exists("/usr/bin/chromium"));
  test::TempDir dir;
  std::string store = (dir.path() / "runs.db").string();
  std::string a = recorded_run(store, "What is 12 * 7 + 3?");
  std::string b = recorded_run(store, kHostile);
  auto steps_workflow = dir.write("steps.yaml",
                                  "version: 1\nname: steps\ninputs:\n  n: {default: \"2\"}\ntools:\n  - builtin: echo\nsteps:\n"
                                  "  each:\n    kind: template\n    for_each: \"range(n | int) | list\"\n    template: \"item {{ item }}\"\n"
                                  "  never:\n    kind: template\n    when: \"n == '0'\"\n    template: never\n"
                                  "  joined:\n    kind: tool\n    tool: echo\n    input: \"{{ steps.each.output | join(', ') }} of {{ n }}\"\n");
  auto stepped = run_engine("run " + shell_quote(steps_workflow.string()) + " -q --json --store " + shell_quote(store));
  REQUIRE(stepped.exit_code == 0);
  std::string c = parse_json(stepped.out)["run_id"];
  int port = test::free_port();
  test::EngineProcess ui("ui workflows/calculator.yaml --port " + std::to_string(port) + " --store " + shell_quote(store));
  REQUIRE(test::wait_until_listening(port));

  auto r = run_command("node tests/peers/viewer_check.mjs http://127.0.0.1:" + std::to_string(port) + " " + a + " " + b + " " + c);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  Value seen = parse_json(r.out);
  REQUIRE(seen.is_object());
  CHECK_FALSE(seen.contains("failure"));
  CHECK(seen["errors"].empty());  // nothing the page's policy blocked, no script error, no missing file

  CHECK(seen["listed"].size() == 3);
  CHECK(seen["filtered_out"] == "No runs match.");
  CHECK(seen["filtered_ok"] == 2);
  CHECK(seen["title"].get<std::string>().find(a) != std::string::npos);
  CHECK(seen["summary"]["output"] == "87");
  CHECK(seen["summary"]["status"] == "ok (finish)");
  // The waterfall: the run, its agent, two model calls and the tool call, each a bar inside its track, nested by
  // indentation, the run's bar the widest, the calls in the order they ran.
  const Value& spans = seen["spans"];
  REQUIRE(spans.size() == 5);
  std::vector<std::string> names;
  for (const Value& s : spans) names.push_back(s["name"]);
  CHECK(names == std::vector<std::string>{"invoke_workflow calculator", "invoke_agent calculator",
                                          "chat scripted-calculator", "execute_tool calculator",
                                          "chat scripted-calculator"});
  for (const Value& s : spans) {
    INFO(s.dump());
    CHECK(s["width"].get<double>() >= 1);
    CHECK(s["left"].get<double>() >= 0);
    CHECK(s["left"].get<double>() + s["width"].get<double>() <= s["track"].get<double>() + 1);
  }
  CHECK(spans[0]["width"].get<double>() > spans[2]["width"].get<double>());
  CHECK(spans[2]["indent"].get<double>() > spans[1]["indent"].get<double>());
  CHECK(spans[1]["indent"].get<double>() > spans[0]["indent"].get<double>());
  CHECK(spans[2]["left"].get<double>() < spans[3]["left"].get<double>());
  CHECK(spans[3]["left"].get<double>() < spans[4]["left"].get<double>());
  // The first model call's prompt and reply, the tool's input and output.
  CHECK(seen["prompt"].get<std::string>().find("Question: What is 12 * 7 + 3?") != std::string::npos);
  CHECK(seen["reply"].get<std::string>().find("Action: calculator") != std::string::npos);
  CHECK(seen["tool_input"] == "12 * 7 + 3");
  CHECK(seen["tool_output"] == "87");
  // Two runs compared: their outputs differ, their workflow does not.
  std::map<std::string, Value> diff;
  for (const Value& line : seen["diff"]) diff[line["what"].get<std::string>()] = line;
  CHECK(diff["output"]["differs"] == true);
  CHECK(diff["output"]["a"] == "87");
  CHECK(diff["workflow"]["differs"] == false);
  // Markup from a run is text.
  CHECK(seen["b_inputs"].get<std::string>().find("<img src=x") != std::string::npos);
  CHECK(seen["injected"] == false);
  // A workflow's steps, from its journal; a run of one agent has none to show.
  CHECK(seen["steps"] == parse_json(R"([
    {"step": "each[0]", "item": true, "status": "done", "inputs": "", "output": "item 0"},
    {"step": "each[1]", "item": true, "status": "done", "inputs": "", "output": "item 1"},
    {"step": "each", "item": false, "status": "done", "inputs": "", "output": "[\n  \"item 0\",\n  \"item 1\"\n]"},
    {"step": "never", "item": false, "status": "skipped", "inputs": "", "output": "its when was false"},
    {"step": "joined", "item": false, "status": "done", "inputs": "{\n  \"input\": \"item 0, item 1 of 2\"\n}",
     "output": "item 0, item 1 of 2"}])"));
  CHECK(seen["a_steps_hidden"] == true);
  // A chat with the served workflow.
  CHECK(seen["models"] == Value::array({"calculator"}));
  CHECK(seen["chat_reply"] == "42");
}

TEST_CASE("viewer e2e: the API over the store, its refusals, and the page's policy", "[e2e][viewer]") {
  test::TempDir dir;
  std::string store = (dir.path() / "runs.db").string();
  std::string a = recorded_run(store, "What is 12 * 7 + 3?");
  std::string b = recorded_run(store, "What is 2 + 2?");
  int port = test::free_port();
  test::EngineProcess ui("ui --port " + std::to_string(port) + " --store " + shell_quote(store));
  REQUIRE(test::wait_until_listening(port));

  auto body_and_status = [](const std::string& out) {
    size_t nl = out.rfind('\n');
    return std::pair<std::string, std::string>(out.substr(0, nl), out.substr(nl + 1));
  };
  auto [list, list_status] = body_and_status(get(port, "/v1/runs?limit=1"));
  CHECK(list_status == "200");
  Value runs = parse_json(list);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["id"] == b);
  auto [one, one_status] = body_and_status(get(port, "/v1/runs/" + a.substr(0, 8)));
  CHECK(one_status == "200");
  Value run = parse_json(one);
  CHECK(run["id"] == a);
  CHECK(run["spans"][0]["name"] == "invoke_workflow calculator");
  CHECK(run["spans"][0]["depth"] == 0);
  CHECK(run["spans"][2]["attributes"]["gen_ai.input.messages"].get<std::string>().find("12 * 7 + 3") != std::string::npos);
  auto [diff, diff_status] = body_and_status(get(port, "/v1/runs/" + a + "/diff/" + b));
  CHECK(diff_status == "200");
  CHECK(parse_json(diff)["lines"].size() > 5);

  CHECK(body_and_status(get(port, "/v1/runs/ffffffffffff")).second == "404");
  CHECK(body_and_status(get(port, "/v1/runs?limit=0")).second == "400");
  CHECK(body_and_status(get(port, "/v1/runs?status=maybe")).second == "400");
  CHECK(body_and_status(get(port, "/v1/runs/" + a + "/spans")).second == "404");
  CHECK(body_and_status(get(port, "/v1/runs", "-X DELETE")).second == "405");
  // A page that rebinds its own name to 127.0.0.1 is refused: the server has no tokens and listens on loopback.
  auto [rebound, rebound_status] = body_and_status(get(port, "/v1/runs", "-H 'Host: attacker.example:80'"));
  CHECK(rebound_status == "403");
  CHECK(rebound.find("host_not_local") != std::string::npos);
  CHECK(body_and_status(get(port, "/v1/runs", "-H 'Host: localhost:1'")).second == "200");
  CHECK(body_and_status(get(port, "/v1/runs", "-H 'Host: [::1]:8080'")).second == "200");
  // The page: its files compiled in, under a policy that runs only its own script.
  auto headers = run_command("curl -s -D - -o /dev/null http://127.0.0.1:" + std::to_string(port) + "/ui/").out;
  CHECK(headers.find("Content-Security-Policy: default-src 'none'; script-src 'self'") != std::string::npos);
  CHECK(headers.find("X-Content-Type-Options: nosniff") != std::string::npos);
  CHECK(body_and_status(get(port, "/ui")).second == "308");
  CHECK(body_and_status(get(port, "/ui/viewer.js")).first.find("/v1/runs") != std::string::npos);
  CHECK(body_and_status(get(port, "/ui/nothing.js")).second == "404");
  // No workflow is served: the chat has none to offer.
  CHECK(parse_json(body_and_status(get(port, "/v1/models")).first)["data"].empty());
}

TEST_CASE("viewer e2e: with tokens the runs need one, the page does not, and without a store the API says so", "[e2e][viewer]") {
  test::TempDir dir;
  std::string store = (dir.path() / "runs.db").string();
  recorded_run(store, "What is 2 + 2?");
  auto tokens = dir.write("tokens", "s3cret-token-for-the-viewer-test\n");
  int port = test::free_port();
  {
    test::EngineProcess serve("serve workflows/calculator.yaml -q --port " + std::to_string(port) + " --store " +
                              shell_quote(store) + " --token-file " + shell_quote(tokens.string()));
    REQUIRE(test::wait_until_listening(port));
    CHECK(get(port, "/v1/runs").substr(get(port, "/v1/runs").rfind('\n') + 1) == "401");
    std::string with = get(port, "/v1/runs", "-H 'Authorization: Bearer s3cret-token-for-the-viewer-test' -H 'Host: any.example'");
    CHECK(with.substr(with.rfind('\n') + 1) == "200");
    std::string page = get(port, "/ui/");
    CHECK(page.substr(page.rfind('\n') + 1) == "200");
  }
  port = test::free_port();
  test::EngineProcess bare("serve workflows/calculator.yaml -q --no-store --port " + std::to_string(port));
  REQUIRE(test::wait_until_listening(port));
  std::string none = get(port, "/v1/runs");
  CHECK(none.substr(none.rfind('\n') + 1) == "503");
  CHECK(none.find("runs_not_recorded") != std::string::npos);
}
