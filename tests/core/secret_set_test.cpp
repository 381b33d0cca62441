// The one set of secrets: filled from anywhere, masking each secret as written and JSON-escaped (once and twice),
// and a writer that masks text written in pieces exactly as the whole.
#include <catch2/catch.hpp>
#include <thread>

#include "engine/core/secret_set.h"
#include "support/test_support.h"

using namespace engine;

TEST_CASE("secret set: what is added is masked from then on, short values are not secrets", "[core][redact]") {
  SecretSet set;
  CHECK(set.empty());
  CHECK(set.mask("key sk-set-0123456789") == "key sk-set-0123456789");
  std::shared_ptr<const Redactor> before = set.masks();
  set.add("sk-set-0123456789");
  set.add("abc");  // three bytes would mask ordinary text
  set.add("sk-set-0123456789");
  CHECK(set.holds("sk-set-0123456789"));
  CHECK_FALSE(set.holds("abc"));
  CHECK(set.mask("key sk-set-0123456789, abc") == "key ***, abc");
  CHECK(before->redact("sk-set-0123456789") == "sk-set-0123456789");  // a snapshot keeps what it was
}

TEST_CASE("secret set: a secret with quotes is masked inside a JSON string and inside JSON text in one",
          "[core][redact]") {
  SecretSet set;
  set.add("pass\"word\\with-quotes");
  CHECK(set.mask("raw pass\"word\\with-quotes") == "raw ***");
  CHECK(set.mask(R"({"v":"pass\"word\\with-quotes"})") == R"({"v":"***"})");
  CHECK(set.mask(R"({"attr":"{\"v\":\"pass\\\"word\\\\with-quotes\"}"})") == R"({"attr":"{\"v\":\"***\"}"})");
  Value v{{"pass\"word\\with-quotes", Value::array({"a pass\"word\\with-quotes"})}};
  set.mask(v);
  CHECK(v == Value{{"***", Value::array({"a ***"})}});
}

TEST_CASE("secret set: another set's secrets are added as they were added there", "[core][redact]") {
  SecretSet server, collector;
  collector.add("Bearer collector-token-0123");
  collector.add("q\"uoted-token-0123");
  server.add_all(collector);
  CHECK(server.holds("Bearer collector-token-0123"));
  CHECK(server.holds("q\"uoted-token-0123"));
  CHECK_FALSE(server.holds("q\\\"uoted-token-0123"));  // its escaped form is a mask, not a secret of its own
  CHECK(server.mask("h: Bearer collector-token-0123") == "h: ***");
}

TEST_CASE("secret set: adding from many threads while others mask loses nothing", "[core][redact]") {
  SecretSet set;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&set, t] {
      for (int i = 0; i < 50; ++i) {
        set.add("secret-" + std::to_string(t) + "-" + std::to_string(i) + "-0123456789");
        (void)set.mask("text with secret-0-0-0123456789");
      }
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) CHECK(set.holds("secret-" + std::to_string(t) + "-49-0123456789"));
  CHECK(set.mask("secret-3-7-0123456789") == "***");
}

TEST_CASE("masking writer: pieces cut anywhere add up to the masked whole, and a flush holds only a long tail",
          "[core][redact]") {
  const std::string key = "sk-writer-Zq8v2LmN4xR7";
  auto secrets = test::secrets_of({key});
  std::string whole = "a " + key + " b " + key.substr(3, 10) + " c";
  std::string expected = secrets->mask(whole);
  CHECK(expected == "a *** b *** c");
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    MaskingWriter writer(secrets);
    std::string out;
    writer.write(whole.substr(0, cut), out);
    writer.write(whole.substr(cut), out);
    writer.finish(out);
    CHECK(out == expected);
  }
  MaskingWriter writer(secrets);
  std::string out;
  writer.write("say sk", out, true);  // two bytes that could begin the key: under half a piece, sent on a flush
  CHECK(out == "say sk");
  CHECK_FALSE(writer.holding());
  writer.write(" then sk-writer", out, true);  // nine: held, though flushed
  CHECK(out == "say sk then ");
  CHECK(writer.holding());
  writer.write("-Zq8v2LmN4xR7!", out, true);
  CHECK(out == "say sk then ***!");
  CHECK_FALSE(writer.holding());
}

TEST_CASE("masking writer: secrets added while it writes are masked from then on", "[core][redact]") {
  auto secrets = std::make_shared<SecretSet>();
  MaskingWriter writer(secrets);
  std::string out;
  writer.write("before sk-late-0123456789 ", out);
  secrets->add("sk-late-0123456789");
  writer.write("after sk-late-0123456789", out);
  writer.finish(out);
  CHECK(out == "before sk-late-0123456789 after ***");
}
