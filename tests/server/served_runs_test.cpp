// What an /invoke request asks of its kept run (server/served_runs.h): whether it prefers an answer at once, its
// Idempotency-Key, and the run id a key names.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/server/served_runs.h"

using namespace engine;

namespace {

server::HttpRequest request_with(const std::string& name, const std::string& value) {
  server::HttpRequest r;
  r.method = "POST";
  r.path = "/v1/workflows/w/invoke";
  r.headers.emplace_back(name, value);
  return r;
}

}  // namespace

TEST_CASE("served runs: respond-async is read among a Prefer header's preferences, in any case, with parameters",
          "[server][serve]") {
  CHECK(server::prefers_async(request_with("prefer", "respond-async")));
  CHECK(server::prefers_async(request_with("prefer", "wait=10, Respond-Async")));
  CHECK(server::prefers_async(request_with("prefer", "return=minimal,respond-async;x=1")));
  CHECK_FALSE(server::prefers_async(request_with("prefer", "respond-asyncs")));
  CHECK_FALSE(server::prefers_async(request_with("prefer", "return=respond-async")));
  CHECK_FALSE(server::prefers_async(request_with("x-prefer", "respond-async")));
}

TEST_CASE("served runs: an Idempotency-Key is 1 to 255 printable bytes, and names the same run id in every process",
          "[server][serve]") {
  CHECK(server::idempotency_key(request_with("idempotency-key", "order 42")) == "order 42");
  CHECK_FALSE(server::idempotency_key(request_with("other", "x")).has_value());
  for (const std::string& bad : {std::string(), std::string(256, 'k'), std::string("a\x01"), std::string("caf\xc3\xa9")}) {
    try {
      server::idempotency_key(request_with("idempotency-key", bad));
      FAIL("accepted a key of " << bad.size() << " bytes");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(e.message() == "the Idempotency-Key header is 1 to 255 printable ASCII characters");
    }
  }
  CHECK(server::idempotency_key(request_with("idempotency-key", std::string(255, 'k'))).has_value());
  std::string id = server::run_id_for_key("orders", "order 42");
  CHECK(id == "ae04424ef09002a0");  // sha256("idempotency-key\norders\norder 42"), its first 16 digits
  CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(server::run_id_for_key("orders", "order 43") != id);
  CHECK(server::run_id_for_key("refunds", "order 42") != id);
}
