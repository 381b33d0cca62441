// TraceContext: traceparent headers read as W3C Trace Context says (a bad one is ignored), ids that are valid.
#include <catch2/catch.hpp>

#include <set>

#include "engine/core/trace_context.h"

using namespace engine;

TEST_CASE("trace context: a traceparent header is read and written back", "[core][trace_context]") {
  auto ctx = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  REQUIRE(ctx);
  CHECK(ctx->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(ctx->parent_span_id == "00f067aa0ba902b7");
  CHECK(ctx->sampled);
  CHECK(format_traceparent(ctx->trace_id, ctx->parent_span_id) ==
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  auto unsampled = parse_traceparent(" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ");
  REQUIRE(unsampled);
  CHECK_FALSE(unsampled->sampled);
  CHECK(format_traceparent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", false).ends_with("-00"));
  // A later version may carry more fields; what version 00 defines is read from it.
  auto later = parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next");
  REQUIRE(later);
  CHECK(later->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST_CASE("trace context: a header that is not a traceparent is ignored", "[core][trace_context]") {
  for (const char* bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",          // no flags
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",       // all-zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",       // all-zero span id
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",       // upper case
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",       // the forbidden version
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", // version 00 has nothing more
           "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
       })
    CHECK_FALSE(parse_traceparent(bad));
}

TEST_CASE("trace context: new ids are lowercase hex of the right length and differ", "[core][trace_context]") {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string trace = new_trace_id(), span = new_span_id();
    REQUIRE(trace.size() == 32);
    REQUIRE(span.size() == 16);
    REQUIRE(parse_traceparent(format_traceparent(trace, span)));  // valid in every way the reader checks
    seen.insert(trace);
  }
  CHECK(seen.size() == 100);
  TraceContext own = TraceContext::new_trace();
  CHECK(own.parent_span_id.empty());
  CHECK(own.sampled);
}
