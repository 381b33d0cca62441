// How many model calls one process can wait on at once, and at what CPU cost, with the two ways of waiting: a
// thread per run, each driving its own curl handle (as runs do today), or one thread driving every transfer through
// one curl multi handle (what an event-driven run would do). Runs of 4 sequential calls each, K runs in flight,
// against a server that answers after a delay (the shared Node mock: bench/inflight.sh starts it).
//   inflight_bench --base URL [--runs N] [--concurrency K] [--mode threads|handoff|multi]
#include <curl/curl.h>
#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const char* arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

size_t keep(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

const char* const kBody =
    R"({"model":"mock","messages":[{"role":"user","content":"Question: What is (10 + 10) doubled twice?\nThought:"}],"stop":["\nObservation:"]})";

// One transfer's state: its easy handle, the answer read so far, and the calls its run has left.
struct Transfer {
  CURL* easy = nullptr;
  std::string answer;
  int calls_left = 4;
};

void prepare(Transfer& t, const std::string& url, curl_slist* headers) {
  curl_easy_setopt(t.easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(t.easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(t.easy, CURLOPT_POSTFIELDS, kBody);
  curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t.answer);
  curl_easy_setopt(t.easy, CURLOPT_NOSIGNAL, 1L);
  t.answer.clear();
}

// A thread per run in flight, each with its own multi handle, as HttpClient drives a call today.
long run_threads(const std::string& url, int runs, int concurrency, curl_slist* headers) {
  std::atomic<int> next{0};
  std::atomic<long> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < concurrency; ++i)
    threads.emplace_back([&] {
      Transfer t;
      t.easy = curl_easy_init();
      CURLM* multi = curl_multi_init();
      while (next++ < runs) {
        for (int call = 0; call < 4; ++call) {
          prepare(t, url, headers);
          curl_multi_add_handle(multi, t.easy);
          for (int running = 1; running;) {
            curl_multi_perform(multi, &running);
            if (running) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
          }
          curl_multi_remove_handle(multi, t.easy);
          ok += t.answer.find("choices") != std::string::npos;
        }
      }
      curl_multi_cleanup(multi);
      curl_easy_cleanup(t.easy);
    });
  for (auto& t : threads) t.join();
  return ok;
}

// One thread, one multi handle, every transfer: a run's next call starts when its answer arrives.
long run_multi(const std::string& url, int runs, int concurrency, curl_slist* headers) {
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  std::vector<Transfer> transfers(static_cast<size_t>(concurrency));
  int started = 0;
  long ok = 0;
  for (auto& t : transfers) {
    t.easy = curl_easy_init();
    curl_easy_setopt(t.easy, CURLOPT_PRIVATE, &t);
    if (started < runs) {
      ++started;
      prepare(t, url, headers);
      curl_multi_add_handle(multi, t.easy);
    }
  }
  for (int running = 1; running;) {
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      curl_multi_remove_handle(multi, t->easy);
      ok += t->answer.find("choices") != std::string::npos;
      if (--t->calls_left == 0) {
        if (started >= runs) continue;
        ++started;
        t->calls_left = 4;
      }
      prepare(*t, url, headers);
      curl_multi_add_handle(multi, t->easy);
      running = 1;
    }
    if (running) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  for (auto& t : transfers) curl_easy_cleanup(t.easy);
  curl_multi_cleanup(multi);
  return ok;
}

// A thread per run as today, but the thread only waits: it hands its transfer to one transport thread that drives
// every transfer through one multi handle, and sleeps until its answer is in.
struct Handoff {
  std::mutex mu;
  std::deque<Transfer*> queued;
  CURLM* multi = curl_multi_init();
  bool done = false;
};

struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
};

long run_handoff(const std::string& url, int runs, int concurrency, curl_slist* headers) {
  Handoff h;
  curl_multi_setopt(h.multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  std::thread transport([&] {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(h.mu);
        if (h.done) break;
        for (Transfer* t : h.queued) curl_multi_add_handle(h.multi, t->easy);
        h.queued.clear();
      }
      int running = 0;
      curl_multi_perform(h.multi, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(h.multi, &left)) {
        if (msg->msg != CURLMSG_DONE) continue;
        Waiter* w = nullptr;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &w);
        curl_multi_remove_handle(h.multi, msg->easy_handle);
        { std::lock_guard<std::mutex> lock(w->mu); w->ready = true; }
        w->cv.notify_one();
      }
      curl_multi_poll(h.multi, nullptr, 0, 1000, nullptr);
    }
  });
  std::atomic<int> next{0};
  std::atomic<long> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < concurrency; ++i)
    threads.emplace_back([&] {
      Transfer t;
      Waiter w;
      t.easy = curl_easy_init();
      while (next++ < runs) {
        for (int call = 0; call < 4; ++call) {
          prepare(t, url, headers);
          curl_easy_setopt(t.easy, CURLOPT_PRIVATE, &w);
          w.ready = false;
          { std::lock_guard<std::mutex> lock(h.mu); h.queued.push_back(&t); }
          curl_multi_wakeup(h.multi);
          std::unique_lock<std::mutex> lock(w.mu);
          w.cv.wait(lock, [&] { return w.ready; });
          ok += t.answer.find("choices") != std::string::npos;
        }
      }
      curl_easy_cleanup(t.easy);
    });
  for (auto& t : threads) t.join();
  { std::lock_guard<std::mutex> lock(h.mu); h.done = true; }
  curl_multi_wakeup(h.multi);
  transport.join();
  curl_multi_cleanup(h.multi);
  return ok;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string base = arg(argc, argv, "--base", "");
  int runs = std::atoi(arg(argc, argv, "--runs", "4096"));
  int concurrency = std::atoi(arg(argc, argv, "--concurrency", "1024"));
  std::string mode = arg(argc, argv, "--mode", "threads");
  if (base.empty() || runs < 1 || concurrency < 1 || (mode != "threads" && mode != "multi" && mode != "handoff")) {
    std::fprintf(stderr, "usage: inflight_bench --base URL [--runs N] [--concurrency K] [--mode threads|handoff|multi]\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Authorization: Bearer sk-mock");
  std::string url = base + "/chat/completions";
  auto start = Clock::now();
  double cpu0 = cpu_seconds();
  long ok = mode == "threads"   ? run_threads(url, runs, concurrency, headers)
            : mode == "handoff" ? run_handoff(url, runs, concurrency, headers)
                                : run_multi(url, runs, concurrency, headers);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  double cpu = cpu_seconds() - cpu0;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("{\"mode\":\"%s\",\"runs\":%d,\"concurrency\":%d,\"ms\":%.0f,\"cpu_us_per_call\":%.1f,\"rss_mb\":%.1f,\"ok\":%ld}\n",
              mode.c_str(), runs, concurrency, ms, cpu * 1e6 / (runs * 4.0), u.ru_maxrss / 1024.0, ok);
  curl_slist_free_all(headers);
  curl_global_cleanup();
  return ok == runs * 4L ? 0 : 1;
}
