#include "engine/server/exchange.h"

#include <unistd.h>

#include "engine/server/http_server.h"

namespace engine::server {

namespace {

void mask_head(HttpResponse& response, const SecretSet& secrets) {
  std::shared_ptr<const Redactor> masks = secrets.masks();
  if (masks->empty()) return;
  for (auto& [name, value] : response.headers) value = masks->redact(value);
}

}  // namespace

Exchange::Exchange(HttpRequest request, std::shared_ptr<ServeLoop> loop, size_t max_stream_queue, const Cancel* parent,
                   std::shared_ptr<const SecretSet> secrets)
    : request_(std::move(request)),
      loop_(std::move(loop)),
      secrets_(std::move(secrets)),
      max_queue_(max_stream_queue),
      cancel_(parent, std::nullopt, "") {}

void Exchange::wake() { loop_->post(shared_from_this()); }

void Exchange::respond(HttpResponse response) {
  if (secrets_) {
    // Masked before the lock: a large body is the answering thread's work, not the serve thread's wait.
    response.body = secrets_->mask(response.body);
    mask_head(response, *secrets_);
  }
  {
    std::lock_guard lock(mu_);
    if (phase_ != Phase::Waiting) return;
    phase_ = Phase::Respond;
    response_ = std::move(response);
    response_.headers.insert(response_.headers.end(), always_.begin(), always_.end());
  }
  wake();
}

void Exchange::open_stream(HttpResponse head, std::string heartbeat) {
  if (secrets_) mask_head(head, *secrets_);
  {
    std::lock_guard lock(mu_);
    if (phase_ != Phase::Waiting) return;
    phase_ = Phase::Streaming;
    if (secrets_) masking_.emplace(secrets_);
    response_ = std::move(head);
    response_.headers.insert(response_.headers.end(), always_.begin(), always_.end());
    heartbeat_ = std::move(heartbeat);
  }
  wake();
}

bool Exchange::send(std::string_view bytes) {
  bool too_slow = false;
  bool was_empty = false;
  {
    std::lock_guard lock(mu_);
    if (phase_ != Phase::Streaming || stream_ended_ || failed_ || gone_) return false;
    was_empty = queue_.size() == queue_taken_;
    std::string masked;
    if (masking_) {
      masking_->write(bytes, masked);
      bytes = masked;
    }
    if (queue_.size() - queue_taken_ + bytes.size() > max_queue_) {
      // The client reads slower than the run writes: it loses the stream rather than hold the run.
      failed_ = too_slow = true;
    } else {
      queue_.append(bytes);
    }
  }
  if (too_slow) cancel_.cancel();
  // A queue that held bytes already has a wake on its way, or the serve thread reading it.
  if (was_empty || too_slow) wake();
  return !too_slow;
}

void Exchange::end_stream() {
  {
    std::lock_guard lock(mu_);
    if (phase_ != Phase::Streaming || stream_ended_) return;
    if (masking_ && !failed_ && !gone_) masking_->finish(queue_);  // what was held back, decided
    stream_ended_ = true;
  }
  wake();
}

bool Exchange::gone() const {
  std::lock_guard lock(mu_);
  return gone_;
}

void ServeLoop::post(std::shared_ptr<Exchange> exchange) {
  {
    std::lock_guard lock(mu);
    woken.push_back(std::move(exchange));
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd, &one, sizeof one);
}

}  // namespace engine::server
