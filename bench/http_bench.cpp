// The engine's cost per LLM round trip over HTTP, against its floor: the calculator workflow runs 1000 times in this
// process against a loopback OpenAI-compatible server that answers at once, then the very requests it sent are
// made again by bare libcurl over one kept-alive connection. The difference is what the engine adds to a call
// (render, parse, the Lua tool, JSON in and out, events), with the network and the server held equal.
#include <curl/curl.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/assemble/build_executor.h"
#include "engine/spec/search_path.h"

using namespace engine;
using Clock = std::chrono::steady_clock;

namespace {

Value chat_answer(const std::string& content) {
  return Value{{"id", "chatcmpl-bench"}, {"object", "chat.completion"},
               {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
               {"usage", {{"prompt_tokens", 300}, {"completion_tokens", 20}, {"total_tokens", 320}}}};
}

std::string sse_answer(const std::string& content) {
  std::string out;
  auto chunk = [&](Value delta, Value finish) {
    out += "data: " + Value{{"choices", {{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}}}}.dump() + "\n\n";
  };
  for (size_t at = 0; at < content.size(); at += 8) chunk({{"content", content.substr(at, 8)}}, nullptr);
  chunk(Value::object(), "stop");
  out += "data: " + Value{{"choices", Value::array()}, {"usage", {{"prompt_tokens", 300}, {"completion_tokens", 20}}}}.dump() +
         "\n\ndata: [DONE]\n\n";
  return out;
}

// Answers the calculator's two prompts as a model would: first the action, then (with an observation) the answer.
class LoopbackServer {
 public:
  LoopbackServer() {
    const std::string action = " I should use the calculator for this.\nAction: calculator\nAction Input: 12 * 7 + 3";
    const std::string final_answer = " I now know the final answer.\nFinal Answer: 87";
    whole_[0] = chat_answer(action).dump();
    whole_[1] = chat_answer(final_answer).dump();
    streamed_[0] = sse_answer(action);
    streamed_[1] = sse_answer(final_answer);
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      int which = req.body.find("Observation: 87") != std::string::npos || req.body.find("Observation: 12 * 7 + 3") != std::string::npos;
      bool stream = req.body.find("\"stream\":true") != std::string::npos;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (bodies_.size() < 2) bodies_.push_back(req.body);
      }
      if (stream) res.set_content(streamed_[which], "text/event-stream");
      else res.set_content(whole_[which], "application/json");
    });
    server_.set_keep_alive_max_count(1'000'000);
    server_.set_tcp_nodelay(true);  // as real servers do: a small answer is not held back for an ACK
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::vector<std::string> first_bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  void forget_bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    bodies_.clear();
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::string whole_[2], streamed_[2];
  std::mutex mu_;
  std::vector<std::string> bodies_;  // the engine's first requests, for the floor to send again
};

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

// The floor: the same requests, in the same order, by one bare curl handle (one kept-alive connection).
class Floor {
 public:
  Floor(const std::string& url, std::vector<std::string> bodies) : bodies_(std::move(bodies)) {
    headers_ = curl_slist_append(headers_, "Content-Type: application/json");
    headers_ = curl_slist_append(headers_, "Authorization: Bearer sk-bench");
    curl_easy_setopt(c_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(c_, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c_, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c_, CURLOPT_NOSIGNAL, 1L);
  }
  ~Floor() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(c_);
  }
  void run() {
    for (const auto& body : bodies_) {
      curl_easy_setopt(c_, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(c_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
      if (curl_easy_perform(c_) != CURLE_OK) std::abort();
    }
  }

 private:
  CURL* c_ = curl_easy_init();
  curl_slist* headers_ = nullptr;
  std::vector<std::string> bodies_;
};

// The engine's LLM round trips inside real runs: from the agent's request (llm_start) to its parsed answer
// (llm_end), request JSON, HTTP and response parsing included.
class RoundTrips : public EventSink {
 public:
  void receive(const Event& e, const EventPlace&) override {
    if (e.type() == EventType::LlmStart) start_ = Clock::now();
    if (e.type() == EventType::LlmEnd) wall.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start_).count());
  }
  std::vector<double> wall;

 private:
  Clock::time_point start_;
};

void run_engine(const workflow::Executor& executor, const Value& inputs, bool stream, EventSink& sink) {
  auto result = executor.run(inputs, sink, agent::RunOptions{.stream = stream});
  if (result.output != "87" || result.llm_calls != 2) {
    std::string why = result.error ? result.error->message : result.output.dump();
    std::fprintf(stderr, "bench: a run went wrong: %s\n", why.c_str());
    std::exit(1);
  }
}

double thread_cpu_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Wall-clock and this thread's CPU time of `fn`, in microseconds.
struct Sample {
  double wall = 0;
  double cpu = 0;
};

template <class F>
Sample measure(F fn) {
  auto t0 = Clock::now();
  double c0 = thread_cpu_us();
  fn();
  return {std::chrono::duration<double, std::micro>(Clock::now() - t0).count(), thread_cpu_us() - c0};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of a per-run figure, per LLM call (2 a run).
double per_call(const std::vector<Sample>& samples, double Sample::*field) {
  std::vector<double> x;
  for (const auto& s : samples) x.push_back(s.*field / 2);
  return median(x);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  LoopbackServer server;
  setenv("ENGINE_BENCH_KEY", "sk-bench", 1);
  auto spec = spec::load_workflow(std::string(ENGINE_SOURCE_DIR) + "/workflows/calculator.yaml", {spec::default_search_path()});
  spec.llm.provider.value = "openai";
  spec.llm.model = "bench-model";
  spec.llm.base_url = server.base_url();
  spec.llm.api_key_env = "ENGINE_BENCH_KEY";
  auto executor = assemble::build_executor(spec);
  Value inputs = executor->resolve_inputs({{"input", "What is 12 * 7 + 3?"}});

  NullSink quiet;
  for (int i = 0; i < 50; ++i) run_engine(*executor, inputs, false, quiet);  // warm up: connection, caches
  std::vector<std::string> bodies = server.first_bodies();
  if (bodies.size() != 2) return std::fprintf(stderr, "bench: expected 2 requests per run\n"), 1;
  Floor floor(server.base_url() + "/chat/completions", bodies);
  for (int i = 0; i < 50; ++i) floor.run();

  // One run of each in turn, so drift on a shared machine lands on all three alike; medians are quoted.
  RoundTrips trips;
  std::vector<Sample> engine_s, floor_s, stream_s;
  for (int i = 0; i < runs; ++i) {
    engine_s.push_back(measure([&] { run_engine(*executor, inputs, false, trips); }));
    floor_s.push_back(measure([&] { floor.run(); }));
    stream_s.push_back(measure([&] { run_engine(*executor, inputs, true, quiet); }));
  }
  double f = per_call(floor_s, &Sample::wall), fc = per_call(floor_s, &Sample::cpu);
  double t = median(trips.wall);
  double e = per_call(engine_s, &Sample::wall), ec = per_call(engine_s, &Sample::cpu);
  double s = per_call(stream_s, &Sample::wall), sc = per_call(stream_s, &Sample::cpu);
  std::printf("HTTP: the calculator workflow run %d times in one process (2 LLM calls a run) against a loopback\n"
              "OpenAI-compatible server that answers at once (cpp-httplib, in process); after each run, the floor.\n"
              "Per LLM call, medians: wall time, and CPU time of the calling thread (the server's not counted).\n",
              runs);
  std::printf("                                                                 wall    vs floor   client CPU\n");
  std::printf("  floor: the same requests by bare libcurl, one connection   %7.1f us            %7.1f us\n", f, fc);
  std::printf("  engine LLM round trip in a run (request JSON, HTTP, parse) %7.1f us   %5.2fx   (target <= 1.2x)\n",
              t, t / f);
  std::printf("  engine whole run per call (+ prompt, parser, Lua tool)     %7.1f us   %5.2fx   %7.1f us\n", e, e / f, ec);
  std::printf("  the same with streamed answers (SSE, 8-byte deltas)        %7.1f us   %5.2fx   %7.1f us\n", s, s / f, sc);
  return 0;
}
