// engine chat WORKFLOW [--session FILE]: a conversation with the workflow's agent. Each line is a message (the
// workflow's chat input); the answer goes to stdout and the steps to stderr, as `engine run` shows them. The agent's
// memory sees the session's past exchanges; --session keeps them in a file that a later chat or run resumes.
#include <iostream>

#include "engine/app/chat_turn.h"
#include "engine/app/inputs.h"
#include "engine/app/loading.h"
#include "engine/app/session.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/line_reader.h"
#include "engine/cli/run_output.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::cli {
namespace {

struct ChatOptions {
  std::string workflow;
  std::string llm;
  std::string session_file;
  InputOptions inputs;  // the other inputs, the same for every message
  OutputOptions output;
};

const char* const kCommands = "/reset, /history, /save FILE, /exit";

class Chat {
 public:
  explicit Chat(const ChatOptions& o)
      : executor_(load_executor(o.workflow, {.llm = o.llm})),
        given_(app::given_inputs(*executor_, o.inputs)),
        session_(o.session_file.empty() ? app::Session(executor_->chat_output(), console_secrets())
                                        : app::Session::open(o.session_file, executor_->chat_output(), console_secrets())),
        out_(o.output, executor_->tools().names(), {"chat", o.workflow}),
        no_color_(o.output.no_color) {
    app::require_chat_input(*executor_);
    // The other inputs are checked once, before the first message, with a stand-in for it.
    Value probe = given_;
    probe[executor_->chat_input()] = "";
    executor_->resolve_inputs(probe);
  }

  int loop() {
    LineReader reader;
    if (session_.turns() > 0)
      std::cerr << "resumed " << session_.exchanges().size() << " exchanges from " << session_.file()->string() << "\n";
    if (reader.interactive()) std::cerr << "chatting with " << executor_->name() << "; " << kCommands << "\n";
    std::string line;
    while (reader.next(line)) {
      std::string_view message = trim(line);
      if (message.empty()) continue;
      if (message.front() == '/') {
        if (!command(message)) break;
        continue;
      }
      turn(std::string(message));
    }
    out_.finish();  // a trace file not written to the end fails the chat, as it fails a run
    return failed_ > 0 ? kRunFailed : kOk;
  }

 private:
  void turn(const std::string& message) {
    // Each turn is a run of its own, and a trace of its own when spans are sent.
    agent::RunResult result = app::run_observed(
        out_.observers(), {.stream = out_.stream()}, [&](EventSink& events, const agent::RunOptions& options) {
          return app::run_chat_turn(*executor_, session_, given_, message, events, options);
        });
    if (!result.ok()) {
      print_error(result.error->kind, result.error->formatted(), no_color_);
      ++failed_;
      return;
    }
    print_answer(result.output);
  }

  // False when the chat should end.
  bool command(std::string_view line) {
    size_t space = line.find(' ');
    std::string_view name = line.substr(0, space);
    std::string arg(space == std::string_view::npos ? "" : trim(line.substr(space + 1)));
    if (name == "/exit" || name == "/quit") return false;
    if (name == "/reset") {
      session_.reset();
      std::cerr << "the conversation starts again"
                << (session_.file() ? " (its file keeps what was said)" : "") << "\n";
    } else if (name == "/history") {
      for (const auto& e : session_.exchanges()) std::cout << "Human: " << e.input << "\nAI: " << e.output << "\n";
      std::cout.flush();
    } else if (name == "/save") {
      save(arg);
    } else {
      std::cerr << "unknown command '" << std::string(name) << "'; the commands are " << kCommands << "\n";
    }
    return true;
  }

  void save(const std::string& file) {
    if (file.empty()) {
      if (session_.file()) std::cerr << "every turn is saved to " << session_.file()->string() << " as it ends\n";
      else std::cerr << "/save needs a file name: /save FILE\n";
      return;
    }
    try {
      session_.save_as(file);
      std::cerr << "saved " << session_.exchanges().size() << " exchanges to " << file
                << "; resume them with --session " << file << "\n";
    } catch (const Error& e) {
      print_error(e.kind(), e.formatted(), no_color_);
    }
  }

  std::shared_ptr<const workflow::Executor> executor_;
  Value given_;
  app::Session session_;
  RunOutput out_;
  bool no_color_;
  int failed_ = 0;
};

}  // namespace

void add_chat_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ChatOptions>();
  CLI::App* cmd = app.add_subcommand("chat", "Chat with a workflow's agent: one message per line, the answers on "
                                             "stdout, the steps on stderr");
  cmd->add_option("workflow", o->workflow, "The workflow YAML file")->required();
  cmd->add_option("--session", o->session_file, "Keep the conversation in FILE (JSON lines, created if absent) and "
                  "resume it from there");
  add_input_options(*cmd, o->inputs);
  cmd->add_option("--llm", o->llm, "Use another model than the workflow's: PROVIDER:MODEL (as engine run)");
  add_output_options(*cmd, o->output);
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return Chat(*o).loop(); }, o->output.no_color); });
}

}  // namespace engine::cli
