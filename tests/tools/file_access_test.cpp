// Files under a granted root: what a tool may read and write, and every way out of the root refused by name.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/tools/file_access.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::TempDir;
namespace fs = std::filesystem;

namespace {

FileGrant root_grant(const fs::path& root, bool write = false, size_t max = 4 << 20) {
  return FileGrant{root, root.filename().string(), write, max};
}

std::string refusal(const std::function<void()>& f, ErrorKind kind = ErrorKind::ToolRefused) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.message();
  }
  FAIL("no error");
  return "";
}

}  // namespace

TEST_CASE("files: read, list and stat under a root, a symlink inside followed", "[tools][files]") {
  TempDir dir;
  dir.write("docs/refunds.md", "Refunds take 14 days.\n");
  dir.write("docs/guides/setup.md", "setup");
  fs::create_symlink("guides/setup.md", dir.path() / "docs/alias.md");
  FileAccess files({root_grant(dir.path() / "docs")});
  CHECK(files.read("refunds.md") == "Refunds take 14 days.\n");
  CHECK(files.read("./guides//setup.md") == "setup");
  CHECK(files.read("alias.md") == "setup");
  auto entries = files.list("");
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].name == "alias.md");
  CHECK(entries[0].type == "link");
  CHECK(entries[1].name == "guides");
  CHECK(entries[1].type == "dir");
  CHECK(entries[2].name == "refunds.md");
  CHECK(entries[2].size == 22);
  CHECK(files.stat("refunds.md")->type == "file");
  CHECK(files.stat("alias.md")->type == "file");  // stat follows a link that stays inside
  CHECK(files.stat("guides")->type == "dir");
  CHECK_FALSE(files.stat("missing.md").has_value());
  CHECK(refusal([&] { files.read("missing.md"); }, ErrorKind::IoNotFound) == "no file 'missing.md' under docs");
}

TEST_CASE("files: '..', absolute paths, NUL bytes and huge names are refused as written", "[tools][files]") {
  TempDir dir;
  dir.write("docs/a.md", "a");
  dir.write("secret.txt", "key");
  FileAccess files({root_grant(dir.path() / "docs")});
  CHECK(refusal([&] { files.read("../secret.txt"); }) == "the path '../secret.txt' has a '..': paths stay under the granted root");
  CHECK(refusal([&] { files.read("sub/../../secret.txt"); }).find("has a '..'") != std::string::npos);
  CHECK(refusal([&] { files.read((dir.path() / "secret.txt").string()); }).find("is absolute") != std::string::npos);
  CHECK(refusal([&] { files.read("/etc/passwd"); }).find("is absolute") != std::string::npos);
  CHECK(refusal([&] { files.read(std::string("a.md\0../../secret.txt", 22)); }).find("NUL byte") != std::string::npos);
  std::string huge(10 << 20, 'x');
  std::string message = refusal([&] { files.read(huge); });
  CHECK(message.find("longer than 4096 bytes") != std::string::npos);
  CHECK(message.size() < 300);  // the name is quoted in part, not whole
  CHECK(refusal([&] { files.read(std::string(300, 'n')); }).find("longer than 255") != std::string::npos);
}

TEST_CASE("files: symlinks out of the root, loops and special files are refused", "[tools][files]") {
  TempDir dir;
  dir.write("docs/a.md", "a");
  dir.write("secret.txt", "key");
  fs::path docs = dir.path() / "docs";
  fs::create_symlink("../secret.txt", docs / "up.md");
  fs::create_symlink(dir.path() / "secret.txt", docs / "absolute.md");
  fs::create_symlink("/dev/zero", docs / "zero");
  fs::create_symlink("../../../../../../../../dev/zero", docs / "zero_up");
  fs::create_symlink("loop_b", docs / "loop_a");
  fs::create_symlink("loop_a", docs / "loop_b");
  fs::create_directory(docs / "sub");
  fs::create_symlink("..", docs / "sub/parent");  // back to the root: inside, allowed
  fs::create_symlink("../..", docs / "sub/grandparent");
  REQUIRE(mkfifo((docs / "pipe").c_str(), 0600) == 0);
  FileAccess files({root_grant(docs)});
  CHECK(refusal([&] { files.read("up.md"); }) == "the path 'up.md' under docs leads out of the root through a symlink");
  CHECK(refusal([&] { files.read("absolute.md"); }).find("symlink to an absolute path") != std::string::npos);
  CHECK(refusal([&] { files.read("zero"); }).find("symlink to an absolute path") != std::string::npos);
  CHECK(refusal([&] { files.read("zero_up"); }).find("leads out of the root") != std::string::npos);
  CHECK(refusal([&] { files.read("loop_a"); }).find("more than 40 symlinks") != std::string::npos);
  CHECK(refusal([&] { files.read("pipe"); }).find("not a regular file") != std::string::npos);
  CHECK(files.read("sub/parent/a.md") == "a");
  CHECK(refusal([&] { files.read("sub/grandparent/secret.txt"); }).find("leads out of the root") != std::string::npos);
  CHECK(refusal([&] { files.list("sub/grandparent"); }).find("leads out of the root") != std::string::npos);
  CHECK(refusal([&] { files.stat("up.md"); }).find("leads out of the root") != std::string::npos);
}

TEST_CASE("files: a read past max_bytes is refused before it is read", "[tools][files]") {
  TempDir dir;
  dir.write("docs/big.txt", std::string(5000, 'b'));
  FileAccess files({root_grant(dir.path() / "docs", false, 4096)});
  CHECK(refusal([&] { files.read("big.txt"); }, ErrorKind::IoTooLarge) ==
        "the file 'big.txt' under docs is 5000 bytes, more than the grant's max_bytes (4096)");
}

TEST_CASE("files: writes need write: true, stay under the root and replace a file whole", "[tools][files]") {
  TempDir dir;
  dir.write("ro/a.md", "a");
  dir.write("rw/notes.md", "old");
  dir.write("outside.txt", "keep");
  fs::create_symlink("../outside.txt", dir.path() / "rw/link.md");
  fs::create_symlink("..", dir.path() / "rw/up");
  FileAccess read_only({root_grant(dir.path() / "ro")});
  CHECK(refusal([&] { read_only.write("a.md", "x"); }) == "no files grant of this tool allows writing (write: true)");
  FileAccess files({root_grant(dir.path() / "ro"), root_grant(dir.path() / "rw", true, 64)});
  files.write("notes.md", "new");
  CHECK(read_file(dir.path() / "rw/notes.md") == "new");
  files.write("deep/er/file.md", "made");  // folders made as needed
  CHECK(read_file(dir.path() / "rw/deep/er/file.md") == "made");
  CHECK(refusal([&] { files.write("link.md", "x"); }).find("is a symlink") != std::string::npos);
  CHECK(refusal([&] { files.write("up/outside.txt", "x"); }).find("leads out of the root") != std::string::npos);
  CHECK(refusal([&] { files.write("../outside.txt", "x"); }).find("has a '..'") != std::string::npos);
  CHECK(refusal([&] { files.write("deep/", "x"); }).find("names a folder") != std::string::npos);
  CHECK(refusal([&] { files.write("big.md", std::string(65, 'x')); }, ErrorKind::IoTooLarge).find("max_bytes (64)") != std::string::npos);
  CHECK(read_file(dir.path() / "outside.txt") == "keep");
  // Nothing is left beside the files written.
  for (const auto& e : fs::directory_iterator(dir.path() / "rw"))
    CHECK(e.path().filename().string().rfind(".engine-write-", 0) == std::string::npos);
  // With several roots, a read takes the first that holds the path.
  CHECK(files.read("a.md") == "a");
  CHECK(files.read("notes.md") == "new");
}

TEST_CASE("files: a walk visits regular files in name order and skips symlinks", "[tools][files]") {
  TempDir dir;
  dir.write("docs/b.md", "b");
  dir.write("docs/a/z.md", "z");
  dir.write("docs/a/y.md", "y");
  dir.write("secret.txt", "key");
  fs::create_symlink("../secret.txt", dir.path() / "docs/c.md");
  fs::create_symlink("..", dir.path() / "docs/up");
  FileAccess files({root_grant(dir.path() / "docs")});
  std::vector<std::string> seen;
  files.walk("", 100, [&](const FileEntry& e, int fd) {
    std::string text;
    CHECK(FileAccess::read_open(fd, 100, text));
    seen.push_back(e.name + "=" + text);
    return true;
  });
  CHECK(seen == std::vector<std::string>{"a/y.md=y", "a/z.md=z", "b.md=b"});
  seen.clear();
  files.walk("a", 1, [&](const FileEntry& e, int) {
    seen.push_back(e.name);
    return true;
  });
  CHECK(seen == std::vector<std::string>{"a/y.md"});
}
