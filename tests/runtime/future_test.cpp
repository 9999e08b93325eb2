// tg::Future: a std::future whose get() and wait() follow a WaitPlan (sleep until pollFrom, poll
// until pollUntil, then sleep), delivering the same value, exception and state as the
// std::future it holds.
#include <gtest/gtest.h>

#include <time.h>

#include <stdexcept>
#include <thread>

#include "../../tensorgrad/src/runtime/gpu_worker.h"
#include "tensorgrad/runtime.h"

namespace {

using Clock = tg::WaitPlan::Clock;
using namespace std::chrono_literals;

// A future for `value`, set by another thread after `delay`.
tg::Future<int> later(int value, Clock::duration delay, tg::WaitPlan plan, std::thread& setter) {
  std::promise<int> promise;
  tg::Future<int> f(promise.get_future(), plan);
  setter = std::thread([p = std::move(promise), value, delay]() mutable {
    std::this_thread::sleep_for(delay);
    p.set_value(value);
  });
  return f;
}

TEST(Future, PollsForAResultThatComesWithinItsPlan) {
  std::thread setter;
  const uint64_t before = tg::resultPollsForTesting();
  const auto now = Clock::now();
  tg::Future<int> f = later(7, 2ms, {.pollFrom = now, .pollUntil = now + 10s}, setter);
  EXPECT_TRUE(f.valid());
  EXPECT_EQ(f.get(), 7);
  EXPECT_FALSE(f.valid());
  EXPECT_EQ(tg::resultPollsForTesting(), before + 1);
  setter.join();
}

TEST(Future, SleepsThroughAResultThatComesBeforeItsPollingStarts) {
  std::thread setter;
  const uint64_t before = tg::resultPollsForTesting();
  const auto now = Clock::now();
  tg::Future<int> f = later(8, 1ms, {.pollFrom = now + 10s, .pollUntil = now + 20s}, setter);
  const auto start = Clock::now();
  f.wait();  // returns with the result, long before pollFrom
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_EQ(f.get(), 8);
  EXPECT_EQ(tg::resultPollsForTesting(), before);
  setter.join();
}

TEST(Future, WithNoPlanOrAPlanPastItWaitsAsAStdFuture) {
  const uint64_t before = tg::resultPollsForTesting();
  std::thread first, second;
  tg::Future<int> plain = later(1, 1ms, {}, first);
  const auto past = Clock::now() - 1s;
  tg::Future<int> late = later(2, 1ms, {.pollFrom = past, .pollUntil = past + 1ms}, second);
  EXPECT_EQ(plain.get(), 1);
  EXPECT_EQ(late.get(), 2);
  EXPECT_EQ(tg::resultPollsForTesting(), before);
  first.join();
  second.join();
}

// This thread's CPU time.
Clock::duration threadCpuTime() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

// A result later than pollUntil: the poll gives up and the wait sleeps until it comes, so the
// waiting thread spends a small part of the wait on a CPU (one that polled to the end would spend
// as much of it as the scheduler gave it: 46% of a 0.4 s wait on this 2-vCPU VM under load).
TEST(Future, SleepsOnceItsPollingEnds) {
  std::promise<int> promise;
  std::future<int> result = promise.get_future();
  std::thread setter([&] {
    std::this_thread::sleep_for(400ms);
    promise.set_value(3);
  });
  const uint64_t before = tg::resultPollsForTesting();
  const auto now = Clock::now();
  tg::Future<int> f(std::move(result), {.pollFrom = now, .pollUntil = now + 10ms});
  const Clock::duration cpu = threadCpuTime();
  EXPECT_EQ(f.get(), 3);
  const Clock::duration waited = Clock::now() - now, spent = threadCpuTime() - cpu;
  EXPECT_LT(spent, waited / 4) << "polled past the plan's end";
  EXPECT_EQ(tg::resultPollsForTesting(), before + 1);
  setter.join();
}

// wait_for polls no longer than its own duration, and a duration past the clock's range waits for
// the result.
TEST(Future, WaitForPollsNoLongerThanItsDuration) {
  const auto now = Clock::now();
  const tg::WaitPlan plan{.pollFrom = now, .pollUntil = now + 1h};
  std::promise<int> never;
  tg::Future<int> f(never.get_future(), plan);
  const uint64_t before = tg::resultPollsForTesting();
  const auto start = Clock::now();
  EXPECT_EQ(f.wait_for(5ms), std::future_status::timeout);
  EXPECT_LT(Clock::now() - start, 30s);
  EXPECT_EQ(tg::resultPollsForTesting(), before + 1);
  EXPECT_EQ(f.wait_for(0s), std::future_status::timeout);

  std::thread setter;
  tg::Future<int> g = later(4, 1ms, plan, setter);
  EXPECT_EQ(g.wait_for(std::chrono::hours::max()), std::future_status::ready);
  EXPECT_EQ(g.get(), 4);
  setter.join();
}

TEST(Future, CarriesExceptionsVoidAndConvertsToTheStdFutureItHolds) {
  const auto now = Clock::now();
  const tg::WaitPlan plan{.pollFrom = now, .pollUntil = now + 10s};
  std::promise<int> failing;
  tg::Future<int> f(failing.get_future(), plan);
  failing.set_exception(std::make_exception_ptr(std::runtime_error("boom")));
  EXPECT_THROW(f.get(), std::runtime_error);

  std::promise<void> done;
  tg::Future<void> v(done.get_future(), plan);
  done.set_value();
  EXPECT_EQ(v.wait_for(0s), std::future_status::ready);
  v.get();

  std::promise<int> kept;
  std::future<int> converted = tg::Future<int>(kept.get_future(), plan);
  kept.set_value(5);
  EXPECT_EQ(converted.get(), 5);

  tg::Future<int> none;
  EXPECT_FALSE(none.valid());
  EXPECT_THROW(none.get(), std::future_error);
}

// The plan the runtime gives a step's or run's Future: from the last call's latency L, sleep until
// L less a margin (L/8, at least 200 µs, at most 2 ms) and poll until L plus that margin; with no
// call before, poll for 200 µs; on a software device, or with waits forced to sleep, no plan.
TEST(Future, PlansFromTheLastCallsLatency) {
  struct Restore {
    ~Restore() { tg::spinWaitsForTesting(std::nullopt); }
  } restore;
  const auto call = Clock::now();
  const auto expect = [&](const tg::WaitPlan& p, Clock::duration from, Clock::duration until) {
    EXPECT_EQ(p.pollFrom - call, from);
    EXPECT_EQ(p.pollUntil - call, until);
  };
  tg::detail::ResultLatency latency;
  expect(latency.planFor(call, false), 0us, 200us);
  latency.record(100us);
  expect(latency.planFor(call, false), -100us, 300us);
  latency.record(8ms);
  expect(latency.planFor(call, false), 7ms, 9ms);
  latency.record(100ms);
  expect(latency.planFor(call, false), 98ms, 102ms);
  const auto none = [&](const tg::WaitPlan& p) { return p.pollUntil <= p.pollFrom; };
  EXPECT_TRUE(none(latency.planFor(call, true)));  // a software device
  tg::spinWaitsForTesting(true);
  EXPECT_FALSE(none(latency.planFor(call, true)));
  tg::spinWaitsForTesting(false);
  EXPECT_TRUE(none(latency.planFor(call, false)));
}

}  // namespace
