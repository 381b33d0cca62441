#pragma once
// One request and its response, shared between the serve thread (which alone talks to libmicrohttpd) and whatever
// answers it: a handler on the serve thread, or a run on a fiber. The answering side calls respond() once, or
// open_stream(), send() as often as it has bytes, and end_stream(); each wakes the serve thread, which resumes the
// connection and hands the bytes over. Nothing here blocks: a stream's queue is bounded, and a client too slow to
// empty it is dropped (its run cancelled) rather than let it hold the run or the server.
//
// The exchange is where a response's bytes leave the process: given the server's SecretSet, it masks the whole of
// a response (body and header values) and a stream's bytes as they are sent, holding back a tail that may be the
// start of a secret until the next piece decides it (core/secret_set.h). No handler masks what it answers.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/core/cancel.h"
#include "engine/core/secret_set.h"
#include "engine/server/http_message.h"

struct MHD_Connection;

namespace engine::server {

class HttpServer;
struct MhdCallbacks;
struct ServeLoop;

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  // `parent` (the server's) cancels every exchange at once. `secrets`: what every byte of the answer is masked by
  // (null: nothing is).
  Exchange(HttpRequest request, std::shared_ptr<ServeLoop> loop, size_t max_stream_queue, const Cancel* parent,
           std::shared_ptr<const SecretSet> secrets = nullptr);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  const HttpRequest& request() const { return request_; }
  // Stops when the client goes away (noticed on a stream's next write, heartbeats included) or the server shuts
  // down; a run started for the request stops with it.
  const Cancel& cancel() const { return cancel_; }

  // Headers every answer to this request carries, whoever gives it (CORS's, for a page of an allowed origin). Only
  // before any answer, on the serve thread.
  void add_response_header(std::string name, std::string value) { always_.emplace_back(std::move(name), std::move(value)); }

  // From any thread, once. A second answer is ignored.
  void respond(HttpResponse response);
  // The status and headers of a response whose body follows in pieces. `heartbeat` is sent whenever nothing else
  // has been for the server's heartbeat interval (an SSE comment), so a client that left is noticed.
  void open_stream(HttpResponse head, std::string heartbeat = ":\n\n");
  // False when the bytes will never reach the client: it left, it is too slow (the queue is over its bound: the
  // stream is then ended with an error), or the stream has ended.
  bool send(std::string_view bytes);
  void end_stream();
  // Whether the client is known to have gone.
  bool gone() const;

 private:
  friend class HttpServer;
  friend struct MhdCallbacks;
  enum class Phase { Waiting, Respond, Streaming };
  void wake();

  HttpRequest request_;
  std::shared_ptr<ServeLoop> loop_;
  std::shared_ptr<const SecretSet> secrets_;
  const size_t max_queue_;
  Cancel cancel_;
  HeaderList always_;

  mutable std::mutex mu_;
  Phase phase_ = Phase::Waiting;
  HttpResponse response_;  // the whole response, or a stream's head
  std::string heartbeat_;
  std::optional<MaskingWriter> masking_;  // a stream's, when secrets are masked
  std::string queue_;      // a stream's bytes not yet taken by the serve thread, masked
  size_t queue_taken_ = 0;
  bool stream_ended_ = false;
  bool failed_ = false;  // too slow, or gone
  bool gone_ = false;

  // The serve thread's own, never touched elsewhere.
  HttpServer* server_ = nullptr;
  MHD_Connection* connection_ = nullptr;
  bool dispatched_ = false;
  bool queued_ = false;     // a response is with libmicrohttpd
  bool suspended_ = false;
  bool heartbeat_due_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_write_;
  size_t bytes_out_ = 0;
  int status_ = 0;
};

}  // namespace engine::server
