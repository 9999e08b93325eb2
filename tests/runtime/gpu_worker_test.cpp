// The GPU thread's order of work with a step in flight and no job: where waits spin it watches
// for the next job (a pipelined caller's next step) before it waits on that step, so a job that
// comes first is submitted behind the step in flight; a step that becomes ready first is finished
// at once; where waits sleep it waits on the step at once. The "step" here is a stand-in whose
// readiness the test controls; its finish blocks until it is ready, as a real step's readback
// does. The watch is lengthened to 2 s so that a loaded machine's scheduling cannot decide.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "../../tensorgrad/src/runtime/gpu_worker.h"
#include "tensorgrad/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

enum class Next { After50us, AfterStep1Finishes, AsStep1BecomesReady };

struct Scenario {
  std::vector<std::string> log;
  Clock::duration readyToFinished{};  // from step 1 ready to its finish
};

// Step 1 is submitted and left in flight (not ready). With Next::After50us the caller posts step
// 2 50 µs after step 1's submit, then makes step 1 ready; with Next::AfterStep1Finishes it makes
// step 1 ready at once and posts step 2 once step 1 has finished; with Next::AsStep1BecomesReady
// step 2 is posted by the worker's first look at step 1's readiness, which then answers ready (the
// race where a caller posts and the step ends between two of the worker's checks).
Scenario run(tg::detail::GpuWorker& worker, Next next) {
  Scenario out;  // written on the GPU thread, read after it is done
  std::atomic<bool> submitted{false}, ready{false}, finished{false}, polled{false};
  Clock::time_point readyAt, finishedAt;
  std::function<void()> postStep2;
  const auto readyNow = [&] {
    if (next == Next::AsStep1BecomesReady && !polled.exchange(true)) {
      postStep2();
      readyAt = Clock::now();
      ready.store(true);
    }
    return ready.load();
  };
  const auto stepJob = [&](const std::string& name, bool first) {
    return [&, name, first](tg::detail::GpuContext& gpu) {
      out.log.push_back("submit " + name);
      gpu.unfinished.push_back(
          {.finish =
               [&, name, first](tg::detail::GpuContext&) {
                 while (first && !ready.load()) {
                 }
                 if (first) finishedAt = Clock::now();
                 out.log.push_back("finish " + name);
                 if (first) finished.store(true);
               },
           .ready = [&, first] { return !first || readyNow(); }});
      if (first) submitted.store(true);
    };
  };
  postStep2 = [&] { worker.postPipelined(stepJob("2", false)); };
  worker.postPipelined(stepJob("1", true));
  while (!submitted.load()) {
  }
  if (next == Next::AsStep1BecomesReady) {
    while (!finished.load()) {
    }
  } else if (next == Next::After50us) {
    const auto until = Clock::now() + 50us;
    while (Clock::now() < until) {
    }
    postStep2();
    readyAt = Clock::now();
    ready.store(true);
  } else {
    readyAt = Clock::now();
    ready.store(true);
    while (!finished.load()) {
    }
    postStep2();
  }
  worker.post([](tg::detail::GpuContext&) {}).get();  // finishes everything before it
  out.readyToFinished = finishedAt - readyAt;
  return out;
}

TEST(GpuWorker, WithAStepInFlightWaitsForTheNextStepOnlyWhereWaitsSpin) {
  struct Restore {
    std::chrono::microseconds spin = tg::detail::setStepInFlightSpinForTesting(2s);
    ~Restore() {
      tg::spinWaitsForTesting(std::nullopt);
      tg::detail::setStepInFlightSpinForTesting(spin);
    }
  } restore;
  tg::detail::GpuWorker worker{tg::RuntimeOptions{}};
  const std::vector<std::string> behind{"submit 1", "submit 2", "finish 1", "finish 2"};
  const std::vector<std::string> after{"submit 1", "finish 1", "submit 2", "finish 2"};

  tg::spinWaitsForTesting(true);
  const uint64_t before = tg::pipelinedJobsBehindUnfinishedForTesting();
  EXPECT_EQ(run(worker, Next::After50us).log, behind);  // queued behind step 1
  EXPECT_EQ(tg::pipelinedJobsBehindUnfinishedForTesting(), before + 1);
  // A job posted as the step becomes ready still goes first, whatever the order of the checks.
  EXPECT_EQ(run(worker, Next::AsStep1BecomesReady).log, behind);
  EXPECT_EQ(tg::pipelinedJobsBehindUnfinishedForTesting(), before + 2);
  // A step that is ready ends the watch: it is finished at once, not 2 s later.
  const Scenario readyFirst = run(worker, Next::AfterStep1Finishes);
  EXPECT_EQ(readyFirst.log, after);
  EXPECT_LT(readyFirst.readyToFinished, 1s);

  // Where waits sleep, the thread waits on step 1 at once: 50 µs later, step 2 comes after it
  // (unless this thread was held up past the worker's whole wait, which the log would show).
  tg::spinWaitsForTesting(false);
  const Scenario sleeping = run(worker, Next::After50us);
  EXPECT_TRUE(sleeping.log == after || sleeping.log == behind);
  EXPECT_EQ(tg::pipelinedJobsBehindUnfinishedForTesting(),
            before + 2 + (sleeping.log == behind ? 1 : 0));
}

}  // namespace
