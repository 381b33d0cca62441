// A workflow reads only under its roots: absolute names, "..", and symlinks that lead out are refused, and nothing
// under /proc, /dev or /sys is readable whatever the roots.
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/file_scope.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;
namespace fs = std::filesystem;

TEST_CASE("scope: files below a root resolve, missing ones too", "[core][scope]") {
  test::TempDir dir;
  auto tool = dir.write("plugins/tool.lua", "return {}");
  FileScope scope({dir.path()});
  CHECK(scope.resolve(dir.path(), "plugins/tool.lua") == fs::canonical(tool));
  CHECK(scope.resolve(dir.path() / "plugins", "../plugins/./tool.lua") == fs::canonical(tool));
  CHECK(scope.resolve(dir.path(), "not-yet.lua") == fs::canonical(dir.path()) / "not-yet.lua");
}

TEST_CASE("scope: absolute names, '..' and symlinks that leave the roots are refused", "[core][scope]") {
  test::TempDir dir, other;
  dir.write("w/w.yaml", "");
  auto secret = other.write("secret.txt", "sk-secret");
  fs::create_symlink(secret, dir.path() / "w/link.txt");
  fs::create_symlink(other.path(), dir.path() / "w/linkdir");
  FileScope scope({dir.path() / "w"});
  std::string root = fs::canonical(dir.path() / "w").string();
  std::string target = fs::canonical(secret).string();
  std::string kind;
  for (const std::string& name : {secret.string(), "../../" + other.path().filename().string() + "/secret.txt",
                                  std::string("link.txt"), std::string("linkdir/secret.txt")}) {
    INFO(name);
    CHECK(test::error_of([&] { scope.resolve(dir.path() / "w", name); }, &kind) ==
          "'" + name + "' resolves to '" + target + "', outside the folders a workflow may read (" + root + ")");
    CHECK(kind == "io.outside_scope");
  }
  CHECK(test::error_of([&] { scope.resolve(dir.path() / "w", "../x"); }) ==
        "'../x' resolves to '" + fs::canonical(dir.path()).string() + "/x', outside the folders a workflow may read (" +
            root + ")");
}

TEST_CASE("scope: /proc, /dev and /sys are never readable, not even with / as a root", "[core][scope]") {
  FileScope everything({"/"});
  CHECK(everything.allows("/etc/hostname"));
  for (const char* name : {"/proc/self/environ", "/dev/zero", "/sys/kernel/notes", "/proc"}) {
    INFO(name);
    std::string kind;
    std::string msg = test::error_of([&] { everything.resolve("/", name); }, &kind);
    CHECK(kind == "io.outside_scope");
    CHECK(msg.find("a system folder no workflow may read") != std::string::npos);
  }
  FileScope proc({"/proc/self"});
  CHECK(proc.roots().size() == 1);
  CHECK_FALSE(proc.allows(fs::canonical("/proc/self") / "environ"));
}

TEST_CASE("scope: no roots allow nothing, missing roots are dropped", "[core][scope]") {
  test::TempDir a, b;
  FileScope none;
  CHECK(test::error_of([&] { none.resolve(a.path(), "x"); }).find("(none)") != std::string::npos);
  FileScope one({a.path(), "/nonexistent/folder"});
  CHECK(one.roots().size() == 1);
  CHECK_FALSE(one.allows(fs::canonical(b.path()) / "x"));
}
