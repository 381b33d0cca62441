#pragma once
// Helpers shared by the tests: temporary workflow folders, running the built `engine`, recording events.
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/event_json.h"
#include "engine/core/secret_set.h"

namespace engine::test {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to `relative` (creating folders) and returns the full path.
  std::filesystem::path write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the built engine with `args` (a shell-quoted string) from the source folder, optionally feeding stdin.
// `env` is prepended to the command, e.g. "OPENAI_BASE_URL=http://127.0.0.1:1234/v1".
CommandResult run_engine(const std::string& args, const std::string& stdin_text = "", const std::string& env = "");
// The built engine started in the background (stdin empty, NO_COLOR set), so a test can signal it mid-run.
class EngineProcess {
 public:
  EngineProcess(const std::string& args, const std::string& env = "");
  ~EngineProcess();  // kills it if the test did not wait for it
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;
  void signal(int sig) const;
  CommandResult wait();
  // What it has written to stderr so far.
  std::string err_so_far() const;
  int pid() const { return pid_; }

 private:
  TempDir io_;
  int pid_ = -1;
};

// Runs a shell command line from the source folder, with NO_COLOR set, capturing stdout and stderr.
CommandResult run_command(const std::string& command_line, const std::string& stdin_text = "");

std::string source_path(const std::string& relative);
// The shipped plugins and templates folders, as the built engine finds them on its search path: what a test loading
// an example workflow through the library passes as LoadOptions::search_path.
std::vector<std::filesystem::path> shipped_search_path();
std::string shell_quote(const std::string& s);
// The official peers the tests talk to (MCP servers and client, the openai client, OpenTelemetry's JS SDK), from
// npm (tests/peers; scripts/setup.sh installs them): fails the test saying so when they are not installed.
void require_npm_peers();

// How many threads the process `pid` has now (0: this one), read from /proc.
size_t thread_count(int pid = 0);
// A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts.
int free_port();
// Whether something accepts connections on 127.0.0.1:`port` within `wait`, looking every 50 ms.
bool wait_until_listening(int port, int wait_ms = 10000);
// Whether `holds` becomes true within `wait_ms`, asked every 5 ms: for a test that waits on a state another thread
// reaches (a run in flight, a file written), never on a guess of how long that takes.
bool wait_until(const std::function<bool()>& holds, int wait_ms = 10000);

// A workflow named `slow` whose agent answers "late" after `latency_ms`: what the serving tests start and cancel.
std::string slow_workflow(int latency_ms);

// Whether `text` holds `key` or any run of kMinSecretFragment of its bytes: what redaction must prevent.
bool holds_piece_of_key(const std::string& text, const std::string& key);

// A judge workflow whose model (its key read from `key_variable`) passes every answer with the reason "it says ANSWER":
// a judge that quotes what it was shown, keys and all.
std::string quoting_judge(const std::string& key_variable);

// A SecretSet holding `values`, as a load that read them would leave it.
std::shared_ptr<SecretSet> secrets_of(std::initializer_list<std::string> values);

// The events of a --trace file, one per line.
std::vector<Value> trace_lines(const std::filesystem::path& file);

// Records events for assertions, with their names and places as a trace shows them.
// An event of `type` with the fields given as a trace writes them (what is not given stays unset): for tests that
// feed sinks events as they would read them in a trace.
inline Event event(EventType type, const Value& fields) { return event_from_fields(type, fields); }

class EventLog : public EventSink {
 public:
  struct Logged {
    std::string type;  // "llm_start", ...
    Value data;
    std::string run_id;
    std::string step;  // the place's path
  };
  void receive(const Event& e, const EventPlace& place) override {
    events.push_back({std::string(event_name(e.type())), event_fields(e), std::string(place.run_id), std::string(place.step)});
  }
  EventDetail detail() const override { return level; }
  std::vector<std::string> types() const;
  std::vector<Logged> events;
  EventDetail level = EventDetail::Full;
};

}  // namespace engine::test
