#include "engine/app/session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lock.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"

namespace engine::app {
namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// What the memory keeps of an answer: the output_key field of a structured one when it has it, else all of it.
std::string remembered_text(const Value& output, const std::string& output_key) {
  const Value& kept = !output_key.empty() && output.is_object() && output.contains(output_key) ? output[output_key] : output;
  return kept.is_string() ? kept.get<std::string>() : to_json_text(kept);
}

// The column nlohmann names in "... at line 1, column 12: ...", or 0.
int column_of(const std::string& message) {
  size_t at = message.find("column ");
  return at == std::string::npos ? 0 : std::atoi(message.c_str() + at + 7);
}

}  // namespace

Session Session::open(const std::filesystem::path& file, std::string output_key,
                      std::shared_ptr<const SecretSet> secrets) {
  Session s(std::move(output_key), secrets ? std::move(secrets) : SecretSet::with_environment_keys());
  s.file_ = file;
  // A session is kept in a file of its own: a FIFO would block the chat at its open, a device would swallow turns.
  struct stat named {};
  if (::lstat(file.c_str(), &named) == 0 && !S_ISREG(named.st_mode) && !S_ISLNK(named.st_mode))
    throw Error(ErrorKind::IoWriteFailed, "the session file '" + file.string() +
                                       "' is not a regular file (a pipe, a device or a folder); give a file's name");
  // Held alone while the session goes on: two chats appending to one file would each lose the other's turns. Never
  // through a symlink (one planted at a new session's name would have the turns written elsewhere). Non-blocking to
  // open, so that a FIFO put there since the check above fails at once rather than waits for a reader.
  auto held = open_locked(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, LockMode::Exclusive, 0600);
  if (held) {
    struct stat opened {};
    if (::fstat(held->get(), &opened) != 0 || !S_ISREG(opened.st_mode))
      throw Error(ErrorKind::IoWriteFailed, "the session file '" + file.string() + "' is not a regular file; give a file's name");
  }
  if (!held)
    throw Error(ErrorKind::SessionBusy, "another engine process is using the session file '" + file.string() +
                                    "'; end it first, or give another file");
  std::string text = read_file(file, limits::kSessionBytes);
  auto fail = [&](ErrorKind kind, int line, int col, const std::string& message) {
    throw Error(kind, message, SourceLoc{file.string(), line, col});
  };
  int line_no = 0;
  for (size_t start = 0; start < text.size();) {
    ++line_no;
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      fail(ErrorKind::SessionTorn, line_no, 1,
           "the session's last line is cut short (was the process stopped while writing it?); the " +
               std::to_string(s.turns_) + " lines before it are whole: remove line " + std::to_string(line_no) +
               " to resume from them");
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    JsonError error;
    Value v = parse_json(line, &error);
    if (v.is_discarded()) fail(ErrorKind::SessionInvalid, line_no, column_of(error.message), "not a session line: " + error.message);
    std::string type = v.is_object() ? v.value("type", "") : "";
    if (type == "reset") {
      s.exchanges_.clear();
      s.outputs_.clear();
    } else if (type == "turn") {
      if (!v.contains("input") || !v["input"].is_string() || !v.contains("output"))
        fail(ErrorKind::SessionInvalid, line_no, 1, "a turn needs a text 'input' and an 'output'");
      s.exchanges_.push_back({v["input"].get<std::string>(), remembered_text(v["output"], s.output_key_)});
      s.outputs_.push_back(std::move(v["output"]));
    } else {
      fail(ErrorKind::SessionInvalid, line_no, 1, "not a session line: its type must be \"turn\" or \"reset\"");
    }
    ++s.turns_;
  }
  s.fd_ = std::move(*held);
  return s;
}

void Session::append_line(const Value& line) {
  if (!fd_.valid()) return;
  std::string text = secrets_->mask(to_json_text(line));  // the file is an output: its one writer masks it
  text += '\n';
  // One write of the whole line (O_APPEND places it at the end), then to the disk, before the turn counts.
  if (!write_fully(fd_.get(), text) || ::fsync(fd_.get()) != 0) throw file_error("cannot write the session file", *file_);
}

void Session::add_turn(const std::string& input, const Value& output) {
  // A session in memory (a served chat's history) builds no line: it would be thrown away.
  if (fd_.valid()) append_line(Value{{"type", "turn"}, {"input", input}, {"output", output}, {"time", utc_now()}});
  exchanges_.push_back({input, remembered_text(output, output_key_)});
  outputs_.push_back(output);
  ++turns_;
}

void Session::reset() {
  append_line(Value{{"type", "reset"}, {"time", utc_now()}});
  exchanges_.clear();
  outputs_.clear();
  ++turns_;
}

void Session::save_as(const std::filesystem::path& path) const {
  std::string text;
  for (size_t i = 0; i < exchanges_.size(); ++i) {
    append_json_text(text, Value{{"type", "turn"}, {"input", exchanges_[i].input}, {"output", outputs_[i]}});
    text += '\n';
  }
  text = (secrets_ ? secrets_ : SecretSet::with_environment_keys())->mask(text);
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    if (errno == EEXIST) throw Error(ErrorKind::IoExists, "'" + path.string() + "' exists; give a new file name");
    throw file_error("cannot write", path);
  }
  if (!write_fully(fd.get(), text) || ::fsync(fd.get()) != 0) throw file_error("cannot write", path);
}

}  // namespace engine::app
