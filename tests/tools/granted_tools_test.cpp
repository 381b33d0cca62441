// The built-ins that reach the world under their grants: arguments as tool-calling models give them, results as
// the model reads them, and refusals as observations naming the tool.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/parse/schema_patterns.h"
#include "engine/tools/builtin_tools.h"
#include "support/granted_api.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::GrantedApi;
using engine::test::TempDir;

namespace {

std::shared_ptr<const Tool> granted_builtin(const std::string& builtin, Grants grants) {
  GrantedToolOptions o;
  o.capabilities = Capabilities::granted(std::move(grants), {});
  return make_builtin_tool(builtin, "", "", nullptr, schema::SchemaOptions{parse::schema_patterns()}, o);
}

Grants folder_grant(const TempDir& dir, bool write = false) {
  Grants g;
  g.files.push_back(FileGrant{dir.path() / "docs", "./docs", write});
  return g;
}

Grants site_grant(const GrantedApi& api) {
  Grants g;
  HttpGrant h;
  h.written = api.base() + "/v1/";
  h.prefix = *net::parse_url(h.written);
  h.methods = {"GET", "POST"};
  g.http.push_back(h);
  return g;
}

ToolResult call_tool(const Tool& tool, Value args) {
  std::string why = prepare_arguments(tool, args);
  if (!why.empty()) return ToolResult::failure(ErrorKind::ToolInvalidArguments, why);
  return tool.instantiate({})->invoke(args);
}

}  // namespace

TEST_CASE("granted builtins: read_file, list_files and search_files under a folder", "[tools][builtins]") {
  TempDir dir;
  dir.write("docs/refunds.md", "# Refunds\nRefunds take 14 days.\nNo refunds on sale items.\n");
  dir.write("docs/guides/setup.md", "Setup takes a minute.\n");
  dir.write("docs/blob.bin", std::string("\0\1\2refunds", 10));
  auto read = granted_builtin("read_file", folder_grant(dir));
  CHECK(read->parameters()["required"] == Value{"path"});
  CHECK(read->description() == "Reads a text file. Granted: ./docs.");
  CHECK(call_tool(*read, {{"path", "refunds.md"}}).text() == "# Refunds\nRefunds take 14 days.\nNo refunds on sale items.\n");
  ToolResult refused = call_tool(*read, {{"path", "../secret"}});
  CHECK(refused.error_kind == ErrorKind::ToolRefused);
  CHECK(refused.text() == "tool 'read_file' failed: the path '../secret' has a '..': paths stay under the granted root");
  CHECK(call_tool(*read, {{"path", "blob.bin"}}).text().find("is not a text file") != std::string::npos);
  CHECK(call_tool(*read, {{"file", "x"}}).error_kind == ErrorKind::ToolInvalidArguments);

  auto list = granted_builtin("list_files", folder_grant(dir));
  CHECK(call_tool(*list, Value::object()).output ==
        Value::parse(R"([{"name":"blob.bin","type":"file","size":10},{"name":"guides","type":"dir"},)"
                     R"({"name":"refunds.md","type":"file","size":58}])"));

  auto search = granted_builtin("search_files", folder_grant(dir));
  CHECK(call_tool(*search, {{"pattern", "(?i)refunds? "}}).text() ==
        "refunds.md:2: Refunds take 14 days.\nrefunds.md:3: No refunds on sale items.");
  CHECK(call_tool(*search, {{"pattern", "takes"}, {"path", "guides"}}).text() == "guides/setup.md:1: Setup takes a minute.");
  CHECK(call_tool(*search, {{"pattern", "R"}, {"max_results", 1}}).text() == "refunds.md:1: # Refunds\n[stopped at 1 matches]");
  CHECK(call_tool(*search, {{"pattern", "zebra"}}).text() == "no line matches 'zebra'");
  CHECK(call_tool(*search, {{"pattern", "(unclosed"}}).text().find("the pattern is not a regex the engine takes") != std::string::npos);
  dir.write("docs/hostile.txt", std::string(20000, 'a') + "!\n");
  ToolResult costly = call_tool(*search, {{"pattern", "(a+)+$"}});  // catastrophic backtracking: bounded
  CHECK((costly.text().find("too costly") != std::string::npos || costly.ok()));
}

TEST_CASE("granted builtins: write_file needs a writable grant", "[tools][builtins]") {
  TempDir dir;
  dir.write("docs/a.md", "a");
  auto ro = granted_builtin("write_file", folder_grant(dir));
  CHECK(call_tool(*ro, {{"path", "b.md"}, {"content", "b"}}).text() ==
        "tool 'write_file' failed: no files grant of this tool allows writing (write: true)");
  auto rw = granted_builtin("write_file", folder_grant(dir, true));
  CHECK(call_tool(*rw, {{"path", "notes/b.md"}, {"content", "bee"}}).text() == "wrote 3 bytes to notes/b.md");
  CHECK(read_file(dir.path() / "docs/notes/b.md") == "bee");
}

TEST_CASE("granted builtins: http_request goes under the grant's prefix", "[tools][builtins]") {
  GrantedApi api;
  auto http = granted_builtin("http_request", site_grant(api));
  CHECK(http->parameters()["properties"]["method"]["enum"] == Value{"GET", "POST"});
  CHECK(http->description() == "Sends an HTTP request to an API and returns its status and body. Granted: GET, POST " +
                                   api.base() + "/v1/.");
  ToolResult got = call_tool(*http, {{"method", "POST"}, {"path", "/echo"}, {"query", {{"q", "a b"}}}, {"body", {{"n", 1}}}});
  REQUIRE(got.ok());
  CHECK(got.output["status"] == 200);
  CHECK(got.output["body"]["method"] == "POST");
  CHECK(got.output["body"]["path"] == "/v1/echo");
  CHECK(got.output["body"]["body"] == "{\"n\":1}");
  CHECK(call_tool(*http, {{"method", "DELETE"}, {"path", "echo"}}).error_kind == ErrorKind::ToolInvalidArguments);
  ToolResult out = call_tool(*http, {{"path", api.base() + "/admin"}});
  CHECK(out.error_kind == ErrorKind::ToolRefused);
  CHECK(out.text().find("the path /admin is not under the grant") != std::string::npos);
}

TEST_CASE("granted builtins: fetch reads a page as text, in slices", "[tools][builtins]") {
  GrantedApi api;
  auto fetch = granted_builtin("fetch", site_grant(api));
  CHECK(call_tool(*fetch, {{"url", api.base() + "/v1/page"}}).text() == "# Refunds\n\nRefunds take 14 days.");
  CHECK(call_tool(*fetch, {{"url", "page"}, {"max_length", 100}}).ok());
  ToolResult sliced = call_tool(*fetch, {{"url", "page"}, {"max_length", 100}, {"start_index", 2}});
  CHECK(sliced.text() == "Refunds\n\nRefunds take 14 days.");
  ToolResult missing = call_tool(*fetch, {{"url", "missing"}});
  CHECK(missing.text() == "tool 'fetch' failed: GET " + api.base() + "/v1/missing answered HTTP 404");
}

TEST_CASE("granted builtins: the grant each needs, and none for the others", "[tools][builtins]") {
  TempDir dir;
  dir.write("docs/a.md", "a");
  try {
    granted_builtin("read_file", Grants{});
    FAIL("made");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::SpecMissingGrant);
    CHECK(e.message() == "builtin 'read_file' needs allow: files: beside it (the folders it may read)");
  }
  CHECK_THROWS_WITH(granted_builtin("echo", folder_grant(dir)), "builtin 'echo' reaches nothing outside; leave allow: out");
}
