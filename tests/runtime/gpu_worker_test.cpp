// The GPU thread's order of work: a pipelined job posted while a step is in flight and not yet
// done is submitted before that step is finished where waits spin (the next step queued behind
// the one in flight), and after it where they sleep. The "step" here is a stand-in whose readiness
// the test controls; its finish blocks until it is ready, as a real step's readback does.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "../../tensorgrad/src/runtime/gpu_worker.h"
#include "tensorgrad/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

void busyFor(std::chrono::microseconds d) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
  }
}

// The GPU thread's log of one scenario: step 1 is submitted and left in flight (not ready); the
// caller posts step 2 50 µs after step 1's submit, then lets step 1 become ready.
std::vector<std::string> scenario(tg::detail::GpuWorker& worker) {
  std::vector<std::string> log;  // written on the GPU thread only, read after it is done
  std::atomic<bool> submitted{false}, ready{false};
  const auto stepJob = [&](const std::string& name, bool startsReady) {
    return [&, name, startsReady](tg::detail::GpuContext& gpu) {
      log.push_back("submit " + name);
      gpu.unfinished.push_back(
          {.finish =
               [&, name, startsReady](tg::detail::GpuContext&) {
                 while (!startsReady && !ready.load()) {
                 }
                 log.push_back("finish " + name);
               },
           .ready = [&, startsReady] { return startsReady || ready.load(); }});
      submitted.store(true);
    };
  };
  worker.postPipelined(stepJob("1", false));
  while (!submitted.load()) {
  }
  busyFor(std::chrono::microseconds(50));  // the caller's own work before its next step
  worker.postPipelined(stepJob("2", true));
  ready.store(true);
  worker.post([](tg::detail::GpuContext&) {}).get();  // finishes everything before it
  return log;
}

TEST(GpuWorker, QueuesTheNextPipelinedStepBehindTheOneInFlightWhereWaitsSpin) {
  struct RestoreSpin {
    ~RestoreSpin() { tg::spinWaitsForTesting(std::nullopt); }
  } restore;
  tg::detail::GpuWorker worker{tg::RuntimeOptions{}};
  const std::vector<std::string> behind{"submit 1", "submit 2", "finish 1", "finish 2"};
  const std::vector<std::string> after{"submit 1", "finish 1", "submit 2", "finish 2"};
  // A thread preempted for the window (200 µs) can miss it: one scenario of three must show
  // each order.
  const auto shows = [&](bool spin, const std::vector<std::string>& order) {
    tg::spinWaitsForTesting(spin);
    for (int attempt = 0; attempt < 3; ++attempt) {
      const std::vector<std::string> log = scenario(worker);
      if (log == order) return true;
      EXPECT_TRUE(log == behind || log == after) << testing::PrintToString(log);
    }
    return false;
  };
  const uint64_t before = tg::pipelinedJobsBehindUnfinishedForTesting();
  EXPECT_TRUE(shows(true, behind));
  EXPECT_GT(tg::pipelinedJobsBehindUnfinishedForTesting(), before);
  EXPECT_TRUE(shows(false, after));
}

}  // namespace
