// Helpers for the runtime tests: futures with a deadline, feeds from the CPU oracle's tensors.
#pragma once

#include <gtest/gtest.h>
#include <tensorgrad/tensorgrad.h>

#include <chrono>

namespace rt_test {

// A std::future or a tg::Future (whose wait polls for the result where its plan says).
template <class F>
auto await(F f) {
  if (f.wait_for(std::chrono::seconds(120)) != std::future_status::ready)
    throw std::runtime_error("a runtime call did not finish in 120 s");
  return f.get();
}

inline tg::Feed toFeed(const std::map<std::string, tg::HostTensor>& tensors) {
  tg::Feed feed;
  for (const auto& [name, t] : tensors) {
    if (t.dtype == tg::Dtype::F32) {
      feed.emplace(name, tg::Array(t.f));
    } else {
      feed.emplace(name, tg::Array(t.i));
    }
  }
  return feed;
}

inline tg::StepResult completedStep(tg::Future<tg::StepResult> f) {
  tg::StepResult r = await(std::move(f));
  EXPECT_EQ(r.kind, tg::ResultKind::Completed) << r.error;
  return r;
}

inline tg::RunResult completedRun(tg::Future<tg::RunResult> f) {
  tg::RunResult r = await(std::move(f));
  EXPECT_EQ(r.kind, tg::ResultKind::Completed) << r.error;
  return r;
}

// Every element within rtol/atol.
inline void expectClose(const std::vector<float>& got, const std::vector<float>& want,
                        double rtol, double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size() && reported < 5; ++i) {
    if (!(std::abs(got[i] - want[i]) <= atol + rtol * std::abs(want[i]))) {
      ADD_FAILURE() << what << "[" << i << "]: " << got[i] << " vs " << want[i];
      ++reported;
    }
  }
}

}  // namespace rt_test
