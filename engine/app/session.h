#pragma once
// A chat session: the exchanges of a conversation, kept in memory or in a file that `engine chat --session` and
// `engine run --session` resume. The file is JSON lines, one per turn, each appended whole and flushed to disk as
// its turn ends, so a killed process loses at most the turn it was in, and never a turn before it:
//   {"type":"turn","input":"hi","output":"Hello!","time":"2026-11-23T10:00:00Z"}
//   {"type":"reset","time":"..."}          (/reset: the memory starts again; the turns before stay in the file)
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/memory.h"
#include "engine/core/file.h"
#include "engine/core/secret_set.h"
#include "engine/core/value.h"

namespace engine::app {

class Session {
 public:
  // A session that lives as long as the process. `output_key` (agent.memory.output_key) names the field of a
  // structured answer the memory keeps as the AI's words, as LangChain's memory output_key does; empty: the whole
  // answer (its JSON text when it is not text). The files it writes are outputs: each line is masked by `secrets`
  // as it is written (null: the standard key variables).
  explicit Session(std::string output_key = "", std::shared_ptr<const SecretSet> secrets = nullptr)
      : output_key_(std::move(output_key)), secrets_(std::move(secrets)) {}
  // Opens (or creates) a session file and reads its turns. Throws Error "session.torn" for a last line cut short
  // (the turns before it are intact: the message says which line to remove), "session.invalid" for a line that is
  // not a session line, located at file:line:col; "io.*" when the file cannot be read or written.
  static Session open(const std::filesystem::path& file, std::string output_key = "",
                      std::shared_ptr<const SecretSet> secrets = nullptr);

  // The exchanges since the last reset, oldest first: what the agent's memory picks from.
  const std::vector<agent::Exchange>& exchanges() const { return exchanges_; }
  // Every turn the session holds, resets included (for "resumed N turns").
  size_t turns() const { return turns_; }
  const std::optional<std::filesystem::path>& file() const { return file_; }

  // Records a turn: appended to the file (one write, then fsync) before it counts. `output` is the run's answer:
  // text, or a structured answer (kept as JSON, remembered as its JSON text).
  void add_turn(const std::string& input, const Value& output);
  // Forgets the exchanges so far; the file keeps them, after a reset line.
  void reset();
  // Writes the exchanges since the last reset to a new session file. Throws Error "io.exists" when `path` exists
  // (nothing is overwritten), "io.write_failed" when it cannot be written.
  void save_as(const std::filesystem::path& path) const;

 private:
  void append_line(const Value& line);

  std::optional<std::filesystem::path> file_;
  FileDescriptor fd_;  // the file, open for appending
  std::vector<agent::Exchange> exchanges_;
  std::vector<Value> outputs_;  // each exchange's output as the run gave it (for save_as)
  size_t turns_ = 0;
  std::string output_key_;
  std::shared_ptr<const SecretSet> secrets_;  // null until a file is written (a served chat's never is)
};

}  // namespace engine::app
