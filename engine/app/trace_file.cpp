#include "engine/app/trace_file.h"

#include "engine/core/error.h"

namespace engine::app {

TraceFile::TraceFile(const std::string& path, std::ios::openmode mode, std::shared_ptr<SecretSet> secrets)
    : path_(path), file_(path, mode), mask_(file_.rdbuf(), std::move(secrets)), out_(&mask_), jsonl_(out_) {
  if (!file_) throw Error(ErrorKind::IoWriteFailed, "cannot write the trace file '" + path + "'");
}

void TraceFile::finish() {
  bool sent = mask_.finish();
  file_.flush();
  if (!sent || !out_ || !file_)
    throw Error(ErrorKind::IoWriteFailed, "cannot write the trace file '" + path_ + "': some of its events were lost");
}

}  // namespace engine::app
