// A workflow file as anyone may write it: loaded, checked and built into an executor. Only engine::Error may
// come out (a located message), never a crash, a yaml-cpp exception or a hang.
#include "engine/assemble/build_executor.h"
#include "engine/spec/workflow_spec.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  fuzz::expect_value_or_error([&] {
    // A folder that does not exist: files the workflow names cannot be read, so the fuzzer explores the format,
    // not the file system.
    spec::WorkflowSpec s = spec::parse_workflow(std::string(fuzz::as_text(data, size)), "fuzz.yaml", "/nonexistent-fuzz");
    assemble::build_executor(s);
  });
  return 0;
}
