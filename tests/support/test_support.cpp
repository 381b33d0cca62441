#include "support/test_support.h"

#include <catch2/catch.hpp>

#include "engine/core/redact.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace engine::test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("engine-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::write(const std::string& relative, const std::string& content) const {
  auto p = path_ / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string slow_workflow(int latency_ms) {
  return "name: slow\ninputs:\n  input: q\nllm:\n  provider: scripted\n  scripted: {latency_ms: " +
         std::to_string(latency_ms) + ", replies: ['Final Answer: late']}\nagent:\n  kind: react\n" +
         "  prompt: \"{{ input }}\\n{{ agent_scratchpad }}\"\n";
}

std::vector<Value> trace_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<Value> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(Value::parse(line));
  return out;
}

bool holds_piece_of_key(const std::string& text, const std::string& key) {
  for (size_t i = 0; i + kMinSecretFragment <= key.size(); ++i)
    if (text.find(key.substr(i, kMinSecretFragment)) != std::string::npos) return true;
  return false;
}

std::string quoting_judge(const std::string& key_variable) {
  return "inputs:\n  answer: a\nllm:\n  provider: scripted\n  api_key_env: " + key_variable + "\n  scripted:\n"
         "    rules: [{match: 'Grade: (?P<a>.*)', reply: '{\"score\": 1, \"reason\": \"it says {{ a }}\"}'}]\n"
         "steps:\n  grade: {kind: llm, prompt: 'Grade: {{ answer }}'}\n";
}

std::shared_ptr<SecretSet> secrets_of(std::initializer_list<std::string> values) {
  auto set = std::make_shared<SecretSet>();
  for (const std::string& v : values) set->add(v);
  return set;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::vector<std::filesystem::path> shipped_search_path() {
  return {source_path("plugins"), source_path("templates")};
}

std::string source_path(const std::string& relative) { return std::string(ENGINE_SOURCE_DIR) + "/" + relative; }

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CommandResult run_command(const std::string& command_line, const std::string& stdin_text) {
  TempDir io;
  auto in = io.write("stdin", stdin_text);
  auto out = io.path() / "stdout";
  auto err = io.path() / "stderr";
  std::string cmd = "cd " + shell_quote(ENGINE_SOURCE_DIR) + " && NO_COLOR=1 " + command_line + " <" +
                    shell_quote(in.string()) + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CommandResult run_engine(const std::string& args, const std::string& stdin_text, const std::string& env) {
  return run_command(env + " " + shell_quote(ENGINE_BIN) + " " + args, stdin_text);
}

EngineProcess::EngineProcess(const std::string& args, const std::string& env) {
  // `exec` so the signal reaches the engine itself, not a shell waiting for it.
  std::string line = "cd " + shell_quote(ENGINE_SOURCE_DIR) + " && NO_COLOR=1 " + env + " exec " +
                     shell_quote(ENGINE_BIN) + " " + args + " </dev/null >" +
                     shell_quote((io_.path() / "stdout").string()) + " 2>" + shell_quote((io_.path() / "stderr").string());
  const char* argv[] = {"sh", "-c", line.c_str(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) pid = -1;
  pid_ = pid;
}

EngineProcess::~EngineProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

void EngineProcess::signal(int sig) const {
  if (pid_ > 0) kill(pid_, sig);
}

std::string EngineProcess::err_so_far() const {
  std::ifstream in(io_.path() / "stderr");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CommandResult EngineProcess::wait() {
  CommandResult r;
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  pid_ = -1;
  r.out = slurp(io_.path() / "stdout");
  r.err = slurp(io_.path() / "stderr");
  return r;
}

std::vector<std::string> EventLog::types() const {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.type);
  return out;
}

void require_npm_peers() {
  bool installed = std::filesystem::exists(source_path("tests/peers/node_modules/.package-lock.json"));
  INFO("the tests' peers from npm are not installed: run scripts/setup.sh (npm ci in tests/peers)");
  REQUIRE(installed);
}

size_t thread_count(int pid) {
  size_t n = 0;
  std::string tasks = pid == 0 ? "/proc/self/task" : "/proc/" + std::to_string(pid) + "/task";
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator(tasks)) ++n;
  return n;
}

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(s);
  return ntohs(a.sin_port);
}

bool wait_until_listening(int port, int wait_ms) {
  for (int waited = 0;; waited += 50) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    if (ok) return true;
    if (waited >= wait_ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool wait_until(const std::function<bool()>& holds, int wait_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (!holds()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace engine::test
