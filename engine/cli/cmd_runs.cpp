// engine runs list|show|...: the runs the local run store keeps (docs/observability.md, "The run store"), and the
// journaled ones resumed, forked, replayed, settled and decided on (docs/durability.md, docs/people.md).
#include <CLI/CLI.hpp>
#include <pwd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <unistd.h>

#include "engine/app/journal_fixture.h"
#include "engine/app/durable_runs.h"
#include "engine/app/run_history.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/cli/run_output.h"
#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/trace/console_printer.h"
#include "engine/trace/wall_clock.h"

namespace engine::cli {
namespace {

struct RunsOptions {
  app::StoreOptions store;
  app::RunQuery query;
  std::string id, other;
  std::string otlp;
  std::string journal_file;  // export --journal
  size_t keep = 0;  // 0: ENGINE_STORE_KEEP's, or the default
  bool unfinished = false;  // list: journaled runs not ended
  bool waiting = false;     // list: journaled runs waiting for a person's decision
  std::string reason;       // approve, reject
  app::ResumeOptions resume;
  std::string call, happened;  // resolve
  app::ForkOptions fork;
  std::vector<std::string> fork_inputs;  // NAME=VALUE
  std::string fork_durability;
  bool not_happened = false;
  OutputOptions output;     // resume: where its steps go
  bool json = false;
  bool no_color = false;
};

std::string local_time(int64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// One line of a table cell: printable, no wider than `width`.
std::string cell(const std::string& text, size_t width) {
  std::string one = printable_excerpt(text, width);
  if (one.size() > width) {  // escapes (\n) made it longer: cut it, never inside a UTF-8 character
    one = one.substr(0, utf8::cut(one, width - 3)) + "...";
  }
  return one.size() < width ? one + std::string(width - one.size(), ' ') : one;
}

// Journaled runs that did not end: left by a crash or Ctrl-C, or in doubt (docs/durability.md).
int list_unfinished(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  std::vector<store::JournalRun> runs = store->journal_runs(true, o.query.limit);
  if (o.json) {
    Value list = Value::array();
    for (const auto& r : runs)
      list.push_back(Value{{"id", r.id}, {"workflow", r.workflow}, {"source", r.source}, {"state", name_of(r.state)},
                           {"started_ms", r.started_ms}, {"parent", r.parent}});
    std::cout << to_json_text(list) << std::endl;
    return kOk;
  }
  if (runs.empty()) {
    std::cerr << "no unfinished runs in " << store->file().string() << std::endl;
    return kOk;
  }
  std::cout << "ID                STARTED              WORKFLOW              STATE     SOURCE\n";
  for (const auto& r : runs)
    std::cout << cell(r.id, 17) << " " << cell(local_time(r.started_ms), 20) << " " << cell(r.workflow, 21) << " "
              << cell(std::string(name_of(r.state)), 9) << " " << printable_excerpt(r.source, 200) << "\n";
  std::cout.flush();
  return kOk;
}

// Journaled runs that wait for a person, and the calls each waits on (docs/people.md).
int list_waiting(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  Value list = Value::array();
  for (const auto& r : store->journal_runs(true, o.query.limit)) {
    if (r.state != store::JournalState::Waiting) continue;
    Value calls = Value::array();
    for (auto& p : app::pending_calls(store->journal_entries(r.id)))
      calls.push_back(Value{{"call", p.call}, {"tool", p.tool}, {"arguments", std::move(p.arguments)}});
    list.push_back(Value{{"id", r.id}, {"workflow", r.workflow}, {"started_ms", r.started_ms}, {"updated_ms", r.updated_ms},
                         {"waiting_on", std::move(calls)}});
  }
  if (o.json) {
    std::cout << to_json_text(list) << std::endl;
    return kOk;
  }
  if (list.empty()) {
    std::cerr << "no run waits for a decision in " << store->file().string() << std::endl;
    return kOk;
  }
  std::cout << "ID                SINCE                WORKFLOW              CALL                  TOOL                  ARGUMENTS\n";
  for (const Value& r : list)
    for (const Value& c : r["waiting_on"])
      std::cout << cell(r["id"], 17) << " " << cell(local_time(r["updated_ms"].get<int64_t>()), 20) << " "
                << cell(r["workflow"], 21) << " " << cell(c["call"], 21) << " " << cell(c["tool"], 21) << " "
                << printable_excerpt(to_json_text(c["arguments"]), 200) << "\n";
  std::cout.flush();
  return kOk;
}

int list_runs(const RunsOptions& o) {
  if (o.unfinished) return list_unfinished(o);
  if (o.waiting) return list_waiting(o);
  auto store = app::open_store(o.store);
  std::vector<store::RunRecord> runs = app::list_runs(*store, o.query);
  if (o.json) {
    Value list = Value::array();
    for (const auto& r : runs) list.push_back(app::run_document(r, false));
    std::cout << to_json_text(list) << std::endl;
    return kOk;
  }
  if (runs.empty()) {
    std::cerr << "no runs recorded in " << store->file().string() << " match" << std::endl;
    return kOk;
  }
  std::cout << "ID                STARTED              WORKFLOW              COMMAND  STATUS  TIME       TOKENS  COST\n";
  for (const auto& r : runs) {
    char time[32], cost[32] = "-";
    std::snprintf(time, sizeof time, "%.2f s", r.elapsed_ms / 1000);
    if (r.cost_usd) std::snprintf(cost, sizeof cost, "$%.6f", *r.cost_usd);
    std::cout << cell(r.id, 17) << " " << cell(local_time(r.started_ms), 20) << " " << cell(r.workflow, 21) << " "
              << cell(r.command, 8) << " " << cell(r.status, 7) << " " << cell(time, 10) << " "
              << cell(std::to_string(r.prompt_tokens + r.completion_tokens), 7) << " " << cost << "\n";
  }
  std::cout.flush();
  return kOk;
}

int show_run(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  store::RunRecord run = app::find_run(*store, o.id);
  if (o.json) {
    std::cout << app::run_document(run, true, app::journal_steps(*store, run.id)).dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
    return kOk;
  }
  // The run as the console showed it, then its answer, as `engine run` prints them.
  std::cout << "run " << run.id << " of " << run.workflow << " (" << run.command << ", " << local_time(run.started_ms)
            << ", " << run.status << ")\n";
  trace::ConsolePrinter console(std::cout, !o.no_color && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
  app::replay_run(run, console);
  std::cout.flush();
  if (run.status == "ok") print_answer(run.output);
  else if (run.error.is_object()) print_error(run.error.value("kind", "run.failed"), run.error.value("message", ""), o.no_color);
  return kOk;
}

// Two runs side by side, line by line (app/run_history.h diff_runs); `*` marks the lines that differ.
int diff_runs(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  store::RunRecord a = app::find_run(*store, o.id), b = app::find_run(*store, o.other);
  Value diff = app::diff_runs(a, b, app::journal_steps(*store, a.id), app::journal_steps(*store, b.id));
  if (o.json) {
    std::cout << to_json_text(diff) << std::endl;
    return kOk;
  }
  size_t width = 20;
  for (const Value& line : diff["lines"]) width = std::max(width, std::min<size_t>(line["what"].get_ref<const std::string&>().size(), 40));
  std::cout << "  " << cell("", width) << " " << cell("A " + a.id, 50) << " B " << b.id << "\n";
  for (const Value& line : diff["lines"])
    std::cout << (line["same"].get<bool>() ? "  " : "* ") << cell(line["what"], width) << " " << cell(line["a"], 50) << " "
              << line["b"].get<std::string>() << "\n";
  std::cout.flush();
  return kOk;
}

// A stored run's spans sent to a collector, at the times it ran; or its journal written to a file, a test's fixture.
int export_run(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  if (!o.journal_file.empty()) {
    if (!o.otlp.empty()) throw Error(ErrorKind::Usage, "give --otlp or --journal, not both");
    auto [id, entries] = app::write_journal_fixture(*store, o.id, o.journal_file);
    std::cerr << "wrote the " << entries << " journal entries of run " << id << " to " << o.journal_file
              << " (a test's `journal:` replays it: docs/testing.md)" << std::endl;
    return kOk;
  }
  store::RunRecord run = app::find_run(*store, o.id);
  // Spans only: the run is in the store already, and its events were masked as they were stored.
  app::RunObservers spans({.otlp = o.otlp, .secrets = console_secrets()});
  if (!spans.traced()) throw Error(ErrorKind::Usage, "name the collector: --otlp URL (or OTEL_EXPORTER_OTLP_ENDPOINT)");
  auto ran_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(run.started_ms));
  app::replay_run(run, spans.sink(), trace::WallClock().steady(ran_at));
  trace::OtlpExporter::Counts counts = spans.finish().spans;
  if (counts.dropped > 0)
    throw Error(ErrorKind::OtlpNotSent, "the collector did not take " + std::to_string(counts.dropped) + " of the " +
                                     std::to_string(counts.sent + counts.dropped) + " spans of run " + run.id +
                                     (counts.last_error.empty() ? std::string() : " (" + counts.last_error + ")"));
  std::cerr << "sent the " << counts.sent << " spans of run " << run.id << " (" << run.workflow << ")" << std::endl;
  return kOk;
}

// A journaled run made again from its journal: what it recorded is replayed, the rest made live.
int resume_run(const RunsOptions& o) {
  app::open_store(o.output.store);  // a store that is off or missing is said so, not run without
  Cancel cancel;
  InterruptWatch interrupts(cancel);
  RunOutput out(o.output, {}, {"resume", ""});
  app::ResumeOptions resume = o.resume;
  resume.secrets = console_secrets();
  agent::RunResult result = app::resume_run(out.observers(), o.id, resume, {.stream = out.stream(), .cancel = &cancel});
  return report_run(out, result, o.json, interrupts, o.output.no_color);
}

// A new run from a recorded one: the same up to a step, live from there, with other inputs or another workflow.
int fork_run(const RunsOptions& o) {
  app::open_store(o.output.store);
  app::ForkOptions fork = o.fork;
  for (const std::string& pair : o.fork_inputs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(ErrorKind::Usage, "--input takes NAME=VALUE, not '" + printable_excerpt(pair, 60) + "'");
    fork.inputs[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  if (!o.fork_durability.empty()) fork.durability = durability_named(o.fork_durability);
  fork.secrets = console_secrets();
  Cancel cancel;
  InterruptWatch interrupts(cancel);
  RunOutput out(o.output, {}, {"fork", ""});
  agent::RunResult result = app::fork_run(out.observers(), o.id, fork, {.stream = out.stream(), .cancel = &cancel});
  std::cerr << "run " << result.run_id << " forked from " << o.id << " at step " << fork.at << std::endl;
  return report_run(out, result, o.json, interrupts, o.output.no_color);
}

// A stored run made again offline against its journal: which steps now end otherwise. Exit 1 when one does.
int replay_run(const RunsOptions& o) {
  auto store = app::open_store(o.output.store);
  OutputOptions output = o.output;
  output.store.off = true;  // a replay is not a run of its own
  RunOutput out(output, {}, {"replay", ""});
  app::ReplayReport report = app::replay_run(*store, out.observers(), o.id, o.fork.workflow, console_secrets());
  out.finish();
  if (o.json) {
    Value doc{{"run_id", report.run},
              {"result", report.result.to_json()},
              {"differences", report.differences},
              {"asked_otherwise", report.asked_otherwise}};
    std::cout << doc.dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
  } else {
    size_t differ = report.differences.size();
    std::cout << "replayed run " << report.run << " against its journal: "
              << (differ == 0 ? std::string("every step ended as recorded")
                              : std::to_string(differ) + (differ == 1 ? " step ends" : " steps end") + " otherwise")
              << "\n";
    for (const Value& d : report.differences)
      std::cout << "* " << d["step"].get<std::string>() << "\n    recorded: " << printable_excerpt(to_json_text(d["recorded"]), 300)
                << "\n    replayed: " << printable_excerpt(to_json_text(d["replayed"]), 300) << "\n";
    for (const std::string& point : report.asked_otherwise)
      std::cout << "asked otherwise than recorded (answered as recorded): " << point << "\n";
    std::cout.flush();
  }
  if (!report.result.ok()) {
    print_error(report.result.error->kind, report.result.error->formatted(), o.output.no_color);
    return kRunFailed;
  }
  return report.differences.empty() ? kOk : kRunFailed;
}

// A call in doubt settled by a person who knows whether it happened.
int resolve_call(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  std::optional<Value> happened;
  if (!o.not_happened) {
    Value v = parse_json(o.happened);
    if (v.is_discarded()) throw Error(ErrorKind::Usage, "--happened takes the call's result as JSON (a string is \"quoted\"), not '" + printable_excerpt(o.happened, 60) + "'");
    happened = std::move(v);
  }
  std::string tool = app::resolve_call(*store, o.id, o.call, happened);
  std::cerr << "call " << o.call << " of tool '" << tool << "' settled as " << (happened ? "happened" : "not happened")
            << ": engine runs resume " << o.id << " goes on" << (happened ? " with its result" : ", making it") << std::endl;
  return kOk;
}

// Who decides from this terminal: the OS user.
std::string os_user() {
  if (const char* user = std::getenv("USER"); user && *user) return user;
  if (const passwd* pw = ::getpwuid(::getuid())) return pw->pw_name;
  return "uid " + std::to_string(::getuid());
}

// A person's decision on a call a run waits on; the run goes on with `engine runs resume`.
int decide_call(const RunsOptions& o, bool approved) {
  auto store = app::open_store(o.store);
  app::PendingCall decided = app::decide_call(*store, o.id, o.call, {approved, o.reason, os_user()});
  std::cerr << "call " << decided.call << " of tool '" << decided.tool << "' " << (approved ? "approved" : "rejected")
            << ": engine runs resume " << o.id << " goes on" << std::endl;
  return kOk;
}

// The retention limit applied now rather than at the next runs' writes.
int prune_runs(const RunsOptions& o) {
  auto store = app::open_store(o.store);
  if (o.keep) store->set_keep(o.keep);
  size_t gone = store->prune();
  std::cerr << "deleted " << gone << (gone == 1 ? " run" : " runs") << "; " << store->file().string()
            << " keeps the newest " << store->keep() << std::endl;
  return kOk;
}

}  // namespace

void add_runs_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App* runs = app.add_subcommand("runs", "The runs recorded in the local run store: list, show, compare, export, prune");
  runs->require_subcommand(1);
  auto store_option = [&](CLI::App* cmd) {
    cmd->add_option("--store", o->store.file, "The run store (default: ENGINE_STORE, or ~/.local/share/engine/runs.db)");
  };

  CLI::App* list = runs->add_subcommand("list", "The newest runs first: id, start, workflow, status, time, tokens, cost");
  store_option(list);
  list->add_option("--workflow", o->query.workflow, "Only this workflow's runs");
  list->add_option("--status", o->query.status, "Only runs that ended so: ok or failed");
  list->add_option("--since", o->query.since, "Only runs started since: an age (30m, 2h, 7d) or a day (2026-11-27)");
  list->add_option("-n,--limit", o->query.limit, "How many runs at most")->capture_default_str()->check(whole_number(1, 100000));
  list->add_flag("--json", o->json, "Print the runs as a JSON list");
  list->add_flag("--unfinished", o->unfinished, "Journaled runs that did not end (a crash, Ctrl-C, a call in doubt), to resume");
  list->add_flag("--waiting", o->waiting, "Journaled runs waiting for a person's decision, and the calls they wait on");
  list->callback([o, &exit_code] { exit_code = guarded([&] { return list_runs(*o); }); });

  CLI::App* show = runs->add_subcommand("show", "A run as the console showed it, then its answer (or --json: all of it)");
  store_option(show);
  show->add_option("id", o->id, "The run's id, or its first 8 characters or more")->required();
  show->add_flag("--json", o->json, "Print the run and its events as JSON");
  show->add_flag("--no-color", o->no_color, "Never colour the steps");
  show->callback([o, &exit_code] { exit_code = guarded([&] { return show_run(*o); }, o->no_color); });

  CLI::App* diff = runs->add_subcommand("diff", "Two runs side by side: summary, steps, tool and model calls; * marks differences");
  store_option(diff);
  diff->add_option("a", o->id, "The first run's id (or its first characters)")->required();
  diff->add_option("b", o->other, "The second run's id")->required();
  diff->add_flag("--json", o->json, "Print {a, b, lines: [{what, a, b, same}]}");
  diff->callback([o, &exit_code] { exit_code = guarded([&] { return diff_runs(*o); }); });

  CLI::App* send = runs->add_subcommand("export", "Send a recorded run's spans to an OpenTelemetry collector, or write its journal to a file");
  store_option(send);
  send->add_option("id", o->id, "The run's id (or its first characters)")->required();
  send->add_option("--otlp", o->otlp, "The collector's URL (OTLP/HTTP JSON; or OTEL_EXPORTER_OTLP_ENDPOINT)");
  send->add_option("--journal", o->journal_file, "Write the run's journal to FILE instead: a test's fixture (docs/testing.md)");
  send->callback([o, &exit_code] { exit_code = guarded([&] { return export_run(*o); }); });

  CLI::App* resume = runs->add_subcommand("resume", "Go on with a journaled run that did not end: what it recorded is "
                                          "replayed, the rest made live, no effect made twice");
  resume->add_option("id", o->id, "The run's id (or its first characters); engine runs list --unfinished names them")->required();
  resume->add_flag("--allow-changed", o->resume.allow_changed, "Resume even though the workflow changed: replay while "
                   "the recorded calls still match, then go on live");
  resume->add_option("--llm", o->resume.llm, "Make the live calls with another model: PROVIDER:MODEL");
  resume->add_flag("--json", o->json, "Print the result as engine run --json does");
  add_output_options(*resume, o->output);
  resume->callback([o, &exit_code] { exit_code = guarded([&] { return resume_run(*o); }, o->output.no_color); });

  CLI::App* fork = runs->add_subcommand("fork", "A new run from a recorded one: its calls before a step answered from "
                                        "its journal, live from the step on (change a prompt, rerun what follows)");
  fork->add_option("id", o->id, "The run's id (or its first characters); it may have ended")->required();
  fork->add_option("--at", o->fork.at, "The step to run live from")->required();
  fork->add_option("-i,--input", o->fork_inputs, "An input to change: NAME=VALUE (repeatable)");
  fork->add_option("--workflow", o->fork.workflow, "Another workflow file to run (a changed prompt); default: the run's");
  fork->add_option("--llm", o->fork.llm, "Make the live calls with another model: PROVIDER:MODEL");
  fork->add_option("--durability", o->fork_durability, "The fork's journal: sync, async or exit")
      ->check(CLI::IsMember(durability_names()));
  fork->add_flag("--json", o->json, "Print the result as engine run --json does");
  add_output_options(*fork, o->output);
  fork->callback([o, &exit_code] { exit_code = guarded([&] { return fork_run(*o); }, o->output.no_color); });

  CLI::App* replay = runs->add_subcommand("replay", "Make a recorded run again offline, every call answered from its "
                                          "journal, and show which steps now end otherwise (exit 1 when one does)");
  replay->add_option("id", o->id, "The run's id (or its first characters)")->required();
  replay->add_option("--workflow", o->fork.workflow, "Replay this workflow file instead of the run's (a changed one)");
  replay->add_flag("--json", o->json, "Print {run_id, result, differences: [{step, recorded, replayed}], asked_otherwise}");
  add_output_options(*replay, o->output);
  replay->callback([o, &exit_code] { exit_code = guarded([&] { return replay_run(*o); }, o->output.no_color); });

  CLI::App* resolve = runs->add_subcommand("resolve", "Say whether a call in doubt happened, so the run can resume");
  store_option(resolve);
  resolve->add_option("id", o->id, "The run's id (or its first characters)")->required();
  resolve->add_option("call", o->call, "The call, as the run's error named it (step/call_1)")->required();
  auto* happened = resolve->add_option("--happened", o->happened, "It happened, and this JSON is what it returned");
  auto* not_happened = resolve->add_flag("--not-happened", o->not_happened, "It did not happen: the resumed run makes it");
  happened->excludes(not_happened);
  resolve->callback([o, &exit_code] {
    exit_code = guarded([&] {
      if (o->happened.empty() && !o->not_happened) throw Error(ErrorKind::Usage, "say --happened RESULT_JSON or --not-happened");
      return resolve_call(*o);
    });
  });

  for (bool approved : {true, false}) {
    CLI::App* decide = runs->add_subcommand(approved ? "approve" : "reject",
                                            approved ? "Approve a tool call a run waits on; engine runs resume goes on"
                                                     : "Reject a tool call a run waits on, with the reason the model reads");
    store_option(decide);
    decide->add_option("id", o->id, "The run's id (or its first characters); engine runs list --waiting names them")->required();
    decide->add_option("call", o->call, "The call, as the run named it (step/call_1); none: the one it waits on");
    auto* reason = decide->add_option("--reason", o->reason, approved ? "Why, for the audit trail" : "Why: the model reads it");
    if (!approved) reason->required();
    decide->callback([o, approved, &exit_code] { exit_code = guarded([&] { return decide_call(*o, approved); }); });
  }

  CLI::App* prune = runs->add_subcommand("prune", "Delete all but the newest runs now (the store also does as it writes)");
  store_option(prune);
  prune->add_option("--keep", o->keep, "How many runs to keep (default: ENGINE_STORE_KEEP, or 10000)")
      ->check(whole_number(1, 1000000000));
  prune->callback([o, &exit_code] { exit_code = guarded([&] { return prune_runs(*o); }); });
}

}  // namespace engine::cli
