#pragma once
// A --trace file: every event of a front end's runs as a JSON line, masked on its way into the file by the front
// end's secret set (core/masking_streambuf.h), so a key that reached a run never reaches the file.
#include <fstream>
#include <ios>
#include <memory>
#include <ostream>
#include <string>

#include "engine/core/masking_streambuf.h"
#include "engine/trace/jsonl_writer.h"

namespace engine::app {

class TraceFile {
 public:
  // Opens `path` with `mode` (truncating for one run, appending for a batch). Throws Error "io.write_failed".
  TraceFile(const std::string& path, std::ios::openmode mode, std::shared_ptr<SecretSet> secrets);
  EventSink& sink() { return jsonl_; }
  // Sends what is held back and flushes the file. Throws Error "io.write_failed" when some of the trace did not get
  // into it (a full disk).
  void finish();

 private:
  std::string path_;
  std::ofstream file_;
  MaskingStreambuf mask_;
  std::ostream out_;
  trace::JsonlWriter jsonl_;
};

}  // namespace engine::app
