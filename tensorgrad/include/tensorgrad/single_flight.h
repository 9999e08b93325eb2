// singleFlight(fn): overlapping calls coalesce to "latest wins" — at most one call in flight and
// one queued; a queued call displaced by a newer one completes as aborted. For UI-driven
// inference: `auto predict = tg::singleFlight<Feed, RunResult>([&](Feed f) { return fwd.run(f); });`
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "tensorgrad/runtime.h"

namespace tg {

template <class R>
struct SingleFlightResult {
  ResultKind kind = ResultKind::Aborted;  // Completed or Aborted
  std::optional<R> value;                 // Completed
};

template <class A, class R>
class SingleFlight {
 public:
  explicit SingleFlight(std::function<std::future<R>(A)> fn)
      : state_(std::make_shared<State>()) {
    state_->fn = std::move(fn);
  }

  std::future<SingleFlightResult<R>> operator()(A arg) const {
    std::promise<SingleFlightResult<R>> promise;
    auto result = promise.get_future();
    std::lock_guard lock(state_->mutex);
    if (state_->active) {
      if (state_->pending) state_->pending->second.set_value({ResultKind::Aborted, std::nullopt});
      state_->pending.emplace(std::move(arg), std::move(promise));
      return result;
    }
    state_->active = true;
    // One waiter thread runs the in-flight call, then whatever is queued when it finishes.
    std::thread(drain, state_, std::move(arg), std::move(promise)).detach();
    return result;
  }

 private:
  struct State {
    std::function<std::future<R>(A)> fn;
    std::mutex mutex;
    bool active = false;
    std::optional<std::pair<A, std::promise<SingleFlightResult<R>>>> pending;
  };

  static void drain(std::shared_ptr<State> state, A arg, std::promise<SingleFlightResult<R>> promise) {
    for (;;) {
      try {
        promise.set_value({ResultKind::Completed, state->fn(std::move(arg)).get()});
      } catch (...) {
        promise.set_exception(std::current_exception());
      }
      std::lock_guard lock(state->mutex);
      if (!state->pending) {
        state->active = false;
        return;
      }
      arg = std::move(state->pending->first);
      promise = std::move(state->pending->second);
      state->pending.reset();
    }
  }

  std::shared_ptr<State> state_;
};

template <class A, class R>
SingleFlight<A, R> singleFlight(std::function<std::future<R>(A)> fn) {
  return SingleFlight<A, R>(std::move(fn));
}

}  // namespace tg
