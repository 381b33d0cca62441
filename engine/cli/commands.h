#pragma once
// One function per `engine` command. Each returns the process exit code: 0 ok, 1 run failed, 2 bad input or usage,
// 3 the run waits for a person's decision.
#include <CLI/CLI.hpp>

namespace engine::cli {

enum ExitCode { kOk = 0, kRunFailed = 1, kBadInput = 2, kWaiting = 3 };  // 3: a person must decide (docs/people.md)

void add_init_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_chat_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_render_command(CLI::App& app, int& exit_code);
void add_parse_command(CLI::App& app, int& exit_code);
void add_tools_commands(CLI::App& app, int& exit_code);
void add_batch_command(CLI::App& app, int& exit_code);
void add_runs_command(CLI::App& app, int& exit_code);
void add_eval_command(CLI::App& app, int& exit_code);
void add_test_command(CLI::App& app, int& exit_code);
void add_schema_command(CLI::App& app, int& exit_code);
void add_index_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_ui_command(CLI::App& app, int& exit_code);  // engine ui: cmd_serve.cpp
void add_mcp_command(CLI::App& app, int& exit_code);
void add_completion_commands(CLI::App& app, int& exit_code);

}  // namespace engine::cli
