#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

// Every engine the tests start records its runs in a store of the build's, never in the user's own
// (~/.local/share/engine/runs.db); a test about the store names its own with --store or ENGINE_STORE.
int main(int argc, char* argv[]) {
  ::setenv("ENGINE_STORE", ENGINE_TEST_STORE, 1);
  return Catch::Session().run(argc, argv);
}
