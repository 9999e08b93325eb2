// tg::Future<T>: what step() and run() return, a std::future<T> whose get(), wait() and
// wait_for() watch for the result on a GPU instead of sleeping until it comes. A caller woken
// from a sleep by the GPU thread's result returned 27-71 µs after it was set on an H100 host
// (bench/RESULTS.md, sixteenth session); polling took 4-25 µs off the MLPs' read-back steps
// there (seventeenth session). So the waiter sleeps only through the part of the wait the last
// call says is sure to pass, then polls. On a software
// device (lavapipe, SwiftShader) the plan is empty and the waiter sleeps at once, as a polling
// caller would take a core from the device. It converts to the std::future<T> it holds (which then
// waits as any std::future does).
#pragma once

#include <algorithm>
#include <chrono>
#include <future>

namespace tg {

// How a wait for one result spends its time (the runtime sets it at the call).
struct WaitPlan {
  using Clock = std::chrono::steady_clock;
  Clock::time_point pollFrom{};   // sleep until then: the result is not expected sooner
  Clock::time_point pollUntil{};  // poll until then, then sleep; no later than pollFrom: no polling
};

namespace detail {
void countResultPoll();  // resultPollsForTesting
}

template <class T>
class Future {
 public:
  Future() = default;
  Future(std::future<T> future, WaitPlan plan = {})  // NOLINT: implicit, as from a std::future
      : future_(std::move(future)), plan_(plan) {}

  T get() {
    poll(Clock::time_point::max());
    return future_.get();
  }
  void wait() const {
    poll(Clock::time_point::max());
    future_.wait();
  }
  // Polls as the plan says, but not past `d` from now.
  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    const auto now = Clock::now();
    using Seconds = std::chrono::duration<double>;
    if (Seconds(d) >= Seconds(Clock::time_point::max() - now)) {  // past the clock's range
      wait();
      return std::future_status::ready;
    }
    const auto deadline = now + std::chrono::ceil<Clock::duration>(d);
    poll(deadline);
    return future_.wait_until(deadline);
  }
  template <class C, class D>
  std::future_status wait_until(const std::chrono::time_point<C, D>& t) const {
    return future_.wait_until(t);  // no polling: a deadline on another clock
  }
  bool valid() const noexcept { return future_.valid(); }
  std::shared_future<T> share() noexcept { return future_.share(); }
  operator std::future<T>() && noexcept { return std::move(future_); }  // NOLINT: implicit

 private:
  using Clock = WaitPlan::Clock;

  // Sleeps until the plan's pollFrom, then polls until its pollUntil, both no later than
  // `deadline`, unless the result comes first.
  void poll(Clock::time_point deadline) const {
    const Clock::time_point until = std::min(plan_.pollUntil, deadline);
    if (!future_.valid() || Clock::now() >= until) return;
    if (plan_.pollFrom > Clock::now() &&
        (future_.wait_until(std::min(plan_.pollFrom, until)) == std::future_status::ready ||
         Clock::now() >= until))
      return;
    detail::countResultPoll();
    while (future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready &&
           Clock::now() < until) {
    }
  }

  std::future<T> future_;
  WaitPlan plan_;
};

}  // namespace tg
