#include "engine/server/run_launcher.h"

#include <memory>
#include <new>
#include <utility>

namespace engine::server {

std::string RunLauncher::timeout_message() const {
  return "the run took longer than the server's limit of " + std::to_string(run_timeout_.count()) +
         " s (--run-timeout)";
}

void RunLauncher::take_turn(const Cancel* parent, const Run& run,
                            const std::function<void(const std::exception&)>& failed) {
  slots_.wait_turn();
  bool held = true;
  auto give_back = [&] {
    if (std::exchange(held, false)) slots_.ran();
  };
  Cancel cancel(parent, std::chrono::steady_clock::now() + run_timeout_, timeout_message());
  try {
    run(cancel, give_back);
  } catch (const std::exception& e) {
    give_back();
    failed(e);
  }
  give_back();
  slots_.answered();
}

bool RunLauncher::start(const Cancel* parent, Run run, Refusals refuse) {
  if (!slots_.admit()) {
    refuse.busy();
    return false;
  }
  try {
    pool_.spawn([this, parent, run = std::move(run), failed = refuse.failed] { take_turn(parent, run, failed); });
  } catch (const std::bad_alloc&) {
    slots_.withdraw();
    refuse.no_memory();
    return false;
  }
  return true;
}

bool RunLauncher::start_all(const Cancel* parent, Rows rows, Refusals refuse) {
  size_t count = rows.count;
  if (!slots_.admit(count)) {
    refuse.busy();
    return false;
  }
  auto all = [this, parent, rows = std::move(rows)] {
    if (rows.begin) rows.begin();
    {
      TaskGroup group;
      for (size_t i = 0; i < rows.count; ++i) {
        auto failed = [&rows, i](const std::exception& e) { rows.failed(i, std::string("the server failed: ") + e.what()); };
        try {
          group.spawn([this, parent, i, &rows, failed] {
            take_turn(parent, [&](const Cancel& c, const std::function<void()>&) { rows.run(i, c); }, failed);
          });
        } catch (const std::exception&) {  // no stack, or no thread
          slots_.withdraw();
          rows.failed(i, "the server cannot start another run now");
        }
      }
    }
    rows.end();
  };
  try {
    pool_.spawn(std::move(all));
  } catch (const std::bad_alloc&) {
    slots_.withdraw(count);
    refuse.no_memory();
    return false;
  }
  return true;
}

}  // namespace engine::server
