// Tools that reach the world under grants, end to end through the built engine: the two examples (documents searched
// and read under a files grant; a Lua tool calling a REST API with a granted header), the granted token never shown,
// a grant never reaching an ungranted tool across a batch of 1000 runs, and `engine index`.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/net/child_process.h"
#include "engine/net/descriptor_watch.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// workflows/tickets/server.mjs on a port of its own, asking for `token`; stopped when the test ends.
struct TicketsApi {
  explicit TicketsApi(const std::string& token)
      : port(test::free_port()),
        server(net::ProcessSpec{"node", {test::source_path("workflows/tickets/server.mjs"), std::to_string(port)},
                                {{"TICKETS_TOKEN", token}}, {}},
               watch) {
    REQUIRE(test::wait_until_listening(port));
  }
  std::string env(const std::string& token) const {
    return "TICKETS_PORT=" + std::to_string(port) + " TICKETS_TOKEN=" + token;
  }
  int port;
  net::DescriptorWatch watch;
  net::ChildProcess server;
};

}  // namespace

TEST_CASE("grants e2e: the docs example searches the docs folder and answers citing page and line", "[e2e][grants]") {
  auto r = test::run_engine("run workflows/docs_qa.yaml --json --input 'How are API keys kept out of traces?'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Value out = parse_json(r.out);
  REQUIRE(out["intermediate_steps"].size() == 2);
  CHECK(out["intermediate_steps"][0]["action"]["tool"] == "search_docs");
  CHECK(out["intermediate_steps"][1]["action"]["tool"] == "read_file");
  // The line cited is the line quoted: its text holds the passage's first words (a cut's "..." left out).
  std::string answer = out["output"];
  std::smatch cited;
  REQUIRE(std::regex_match(answer, cited, std::regex(R"(.+ \(([\w./-]+\.md), line (\d+)\): (\.\.\.)?(.+))")));
  std::string page = read_file(test::source_path("docs/" + cited[1].str()));
  std::string line;
  std::istringstream lines(page);
  for (int n = std::stoi(cited[2].str()); n > 0; --n) std::getline(lines, line);
  std::string passage = cited[4].str();
  INFO(answer);
  CHECK(line.find(passage.substr(0, passage.find(' ', 12))) != std::string::npos);
  CHECK(passage.find("traces") != std::string::npos);
  // The grant opens docs/ and nothing else: the model's path out of it is refused, and it reads the refusal.
  auto outside = test::run_engine("tool workflows/docs_qa.yaml read_file --input '{\"path\": \"../README.md\"}'");
  CHECK(outside.exit_code == 1);
  CHECK(outside.err.find("error[tool.refused]: tool 'read_file' failed: the path '../README.md' has a '..'") !=
        std::string::npos);
}

TEST_CASE("grants e2e: the ticket example calls the API with the granted token, never shown", "[e2e][grants]") {
  test::require_npm_peers();  // node
  const std::string token = "tickets-7f3e2a91c4b05d68";
  TicketsApi api(token);
  test::TempDir dir;
  auto trace = dir.path() / "trace.jsonl";
  auto r = test::run_engine("run workflows/ticket_api.yaml --trace " + test::shell_quote(trace.string()), "",
                            api.env(token));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Ticket 2 (\"Parcel arrived damaged\") is waiting on customer.") != std::string::npos);
  auto missing = test::run_engine("run workflows/ticket_api.yaml -q --input 'and ticket 9?'", "", api.env(token));
  CHECK(missing.out == "The ticket could not be read: tool 'tickets' failed: the ticket API answered 404: no ticket at "
                       "/v1/tickets/9\n");
  std::string traced = read_file(trace);
  CHECK(traced.find("\"tool_end\"") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(r.out + r.err + traced, token));
  // A wrong token: the server's refusal is the tool's error; the token the engine sent is still never shown.
  auto refused = test::run_engine("run workflows/ticket_api.yaml -q", "", api.env("wrong-token-0123456789"));
  CHECK(refused.out.find("answered 401") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(refused.out + refused.err, "wrong-token-0123456789"));
}

TEST_CASE("grants e2e: of two tools on one script only the granted one reads, over a batch of 1000", "[e2e][grants]") {
  test::TempDir dir;
  dir.write("docs/secret.md", "the grant's text");
  dir.write("reader.lua", "return function(path)\n  local ok, text = pcall(engine.fs.read, path)\n"
                          "  return ok and ('read: ' .. text) or 'refused'\nend\n");
  auto wf = dir.write("w.yaml",
                      "version: 1\nname: two\ninputs: {input: {}}\nagent: {kind: tool_calling}\n"
                      "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
                      "      - {match: '(?s)tool: (?P<a>[^\\n]*)\\ntool: (?P<b>[^\\n]*)', reply: '{{ a }} | {{ b }}'}\n"
                      "      - match: 'user: '\n        tool_calls:\n"
                      "          - {name: granted, arguments: 'secret.md'}\n"
                      "          - {name: ungranted, arguments: 'secret.md'}\n"
                      "tools:\n  - {lua: reader.lua, name: granted, allow: {files: [{root: docs}]}}\n"
                      "  - {lua: reader.lua, name: ungranted}\n");
  std::string rows;
  for (int i = 0; i < 1000; ++i) rows += "{\"input\": \"" + std::to_string(i) + "\"}\n";
  auto data = dir.write("rows.jsonl", rows);
  auto out = dir.path() / "out.jsonl";
  auto r = test::run_engine("batch " + test::shell_quote(wf.string()) + " --data " + test::shell_quote(data.string()) +
                            " --out " + test::shell_quote(out.string()) + " --concurrency 64");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream results(out);
  int right = 0, rows_seen = 0;
  for (std::string line; std::getline(results, line);) {
    ++rows_seen;
    if (parse_json(line)["output"] == "read: the grant's text | refused") ++right;
  }
  CHECK(rows_seen == 1000);
  CHECK(right == 1000);
}

TEST_CASE("grants e2e: engine index makes a folder's index ahead of time and reports what changed", "[e2e][grants]") {
  test::TempDir dir;
  dir.write("docs/a.md", "# Alpha\n\nAardvarks are here.\n");
  dir.write("docs/b.html", "<h1>Beta</h1><p>Badgers.</p>");
  auto index = dir.path() / "docs.sqlite";
  auto first = test::run_engine("index --json " + test::shell_quote((dir.path() / "docs").string()) + " --out " +
                                test::shell_quote(index.string()));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  Value report = parse_json(first.out);
  CHECK(report["documents"] == 2);
  CHECK(report["added"] == 2);
  dir.write("docs/a.md", "# Alpha\n\nAardvarks moved out, a longer text.\n");
  auto second = test::run_engine("index " + test::shell_quote((dir.path() / "docs").string()) + " -o " +
                                 test::shell_quote(index.string()));
  CHECK(second.out.find(": 2 documents (0 added, 1 updated, 0 removed) in " + index.string()) != std::string::npos);
  // A workflow: each search_docs tool's index, where the tool keeps it; the tool then finds it made.
  auto wf = dir.write("w.yaml", "version: 1\nname: i\ninputs: {input: {}}\nllm: {provider: scripted, scripted: "
                                "{replies: [x]}}\nagent: {}\ntools:\n  - builtin: search_docs\n    index: cache/i.sqlite\n"
                                "    allow: {files: [{root: docs}]}\n");
  auto by_workflow = test::run_engine("index " + test::shell_quote(wf.string()));
  INFO(by_workflow.err);
  CHECK(by_workflow.exit_code == 0);
  CHECK(std::filesystem::exists(dir.path() / "cache/i.sqlite"));
  auto found = test::run_engine("tool " + test::shell_quote(wf.string()) + " search_docs --input '{\"query\": \"badgers\"}'");
  CHECK(found.out == "b.html:3: ...[Badgers].\n");
  auto none = test::run_engine("index " + test::shell_quote((dir.path() / "nowhere").string()));
  CHECK(none.exit_code == 2);
}
