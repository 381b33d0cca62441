#include "engine/app/evaluation.h"

#include <fcntl.h>

#include <atomic>
#include <exception>

#include "engine/app/batch_results.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/core/file.h"
#include "engine/core/file_lines.h"
#include "engine/core/file_lock.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"

namespace engine::app {
namespace {

// Lines are scored a chunk at a time, so a results file of any size is never held whole.
constexpr size_t kChunk = 256;

}  // namespace

namespace {

// The line of the data file a result came from, as a person would look for it.
size_t data_line(const Value& result) {
  if (auto line = result.find("line"); line != result.end() && line->is_number_unsigned()) return line->get<size_t>();
  return result_index(result).value_or(0) + 1;
}

}  // namespace

bool EvaluationReport::ok() const {
  return std::all_of(evaluators.begin(), evaluators.end(), [](const EvaluatorSummary& e) { return e.ok(); });
}

Value EvaluationReport::to_json() const {
  Value list = Value::array();
  for (const auto& e : evaluators) {
    Value j{{"name", e.name}, {"kind", e.kind},     {"lines", e.lines},         {"passed", e.passed},
            {"mean", e.mean()}, {"pass_rate", e.pass_rate()}, {"ok", e.ok()}};
    j["threshold"] = e.threshold ? Value(*e.threshold) : Value(nullptr);
    j["failed_lines"] = e.failed_lines;
    list.push_back(std::move(j));
  }
  return Value{{"lines", lines}, {"ok", ok()}, {"evaluators", std::move(list)}};
}

Evaluation::Evaluation(const std::filesystem::path& eval_file, std::shared_ptr<SecretSet> secrets)
    : spec_(spec::load_eval(eval_file)),
      secrets_(secrets ? std::move(secrets) : SecretSet::with_environment_keys()),
      evaluators_(build_evaluators(spec_, secrets_)) {}

EvaluationReport Evaluation::run(const EvaluationOptions& o, const Cancel& cancel) const {
  EvaluationReport report;
  for (const auto& e : evaluators_) {
    EvaluatorSummary s{e->name(), e->kind()};
    s.threshold = e->threshold() ? e->threshold() : o.threshold ? o.threshold : spec_.threshold;
    report.evaluators.push_back(s);
  }
  std::error_code ec;
  bool in_place = o.out.empty() || std::filesystem::equivalent(o.out, o.results, ec);
  std::filesystem::path out = in_place ? o.results : o.out;
  // A batch still appending to the results would lose every line it wrote while they are scored (the scored file
  // replaces them): the results are held for the whole scoring, alone when rewritten in place.
  // Opened for reading either way: the lock needs no write access, and the scored file replaces them by rename.
  auto held = open_locked(o.results, O_RDONLY, in_place ? LockMode::Exclusive : LockMode::Shared);
  if (!held)
    throw Error(ErrorKind::BatchBusy, "an engine batch is still writing '" + o.results.string() +
                                  "'; score its results once it has ended");
  std::optional<FileDescriptor> out_held;
  if (!in_place && std::filesystem::exists(out, ec)) {
    out_held = open_locked(out, O_RDONLY, LockMode::Exclusive);
    if (!out_held) throw Error(ErrorKind::BatchBusy, "another engine process is writing '" + out.string() + "'; give --out another file");
  }
  check_results_start(o.results, "give --results the file engine batch wrote");
  FileReplacement scored(out);
  try_lock(scored.descriptor(), LockMode::Exclusive);  // so the lock holds on the new file from its first instant
  FileLines lines(o.results, limits::kResultLineBytes, Pipes::Refused);
  std::vector<Value> chunk;
  std::vector<std::vector<Score>> scores;
  auto score_chunk = [&] {
    scores.assign(chunk.size(), std::vector<Score>(evaluators_.size()));
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto worker = [&] {
      try {
        for (size_t i; (i = next++) < chunk.size();) {
          if (cancel.stopped()) throw_stopped(cancel);
          for (size_t e = 0; e < evaluators_.size(); ++e) scores[i][e] = evaluators_[e]->score(chunk[i], &cancel);
        }
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = chunk.size();
      }
    };
    {
      // Judges are runs that wait for a model: fibers, as a batch's runs are.
      size_t workers = std::min(o.concurrency, chunk.size());
      FiberPool fibers(FiberPool::threads_for(workers));
      for (size_t t = 0; t < workers; ++t) fibers.spawn(worker);
      fibers.join();
    }
    if (failure) std::rethrow_exception(failure);
    std::string text;
    for (size_t i = 0; i < chunk.size(); ++i) {
      Value by_name = Value::object();
      for (size_t e = 0; e < evaluators_.size(); ++e) {
        EvaluatorSummary& s = report.evaluators[e];
        ++s.lines;
        s.total += scores[i][e].score;
        if (scores[i][e].pass) ++s.passed;
        else if (s.failed_lines.size() < EvaluatorSummary::kMaxFailedListed) s.failed_lines.push_back(data_line(chunk[i]));
        by_name[evaluators_[e]->name()] = scores[i][e].to_json();
      }
      chunk[i]["scores"] = std::move(by_name);
      append_json_text(text, chunk[i]);
      text += '\n';
    }
    scored.write(secrets_->mask(text));  // the scored file is an output: a judge may quote a key it saw
    report.lines += chunk.size();
    chunk.clear();
  };
  for (std::string text; lines.next(text);) {
    if (text.empty()) continue;
    Value v = lines.too_long() ? Value(Value::value_t::discarded) : parse_json(text);
    if (!result_index(v))
      throw Error(ErrorKind::BatchBadResults, o.results.string() + ":" + std::to_string(lines.line_number()) +
                                           ": not a batch's result line" +
                                           (lines.complete() ? "" : " (cut short: run the batch again to finish it)"));
    chunk.push_back(std::move(v));
    if (chunk.size() == kChunk) score_chunk();
  }
  if (!chunk.empty()) score_chunk();
  scored.commit();  // a scoring that fails leaves the results as they were
  return report;
}

}  // namespace engine::app
