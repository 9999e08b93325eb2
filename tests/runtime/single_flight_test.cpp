// tg::singleFlight deduces its argument and result types from the callable, as TypeScript infers
// them from `singleFlight(b => infer.run({ x: b }))`; the explicit singleFlight<A, R>(fn) form
// stays. The calls here resolve when the test says so, so "latest wins" is checked without a GPU
// (Forward.SingleFlightKeepsOneInFlightAndTheLatestQueued runs it on a real forward).
#include <gtest/gtest.h>
#include <tensorgrad/single_flight.h>

#include <string>
#include <type_traits>
#include <vector>

#include "runtime_test_util.h"

namespace {

std::future<int> length(const std::string& s) {
  std::promise<int> p;
  p.set_value(static_cast<int>(s.size()));
  return p.get_future();
}

// The deduced types: the argument decayed (a `const std::string&` parameter queues a string), the
// result the future's value type; function pointers and mutable lambdas too.
using FromLambda = decltype(tg::singleFlight([](tg::Feed) { return std::future<tg::RunResult>(); }));
static_assert(std::is_same_v<FromLambda, tg::SingleFlight<tg::Feed, tg::RunResult>>);
using FromConstRef =
    decltype(tg::singleFlight([](const std::string&) mutable { return std::future<int>(); }));
static_assert(std::is_same_v<FromConstRef, tg::SingleFlight<std::string, int>>);
static_assert(std::is_same_v<decltype(tg::singleFlight(&length)), tg::SingleFlight<std::string, int>>);
// What CompiledForward::run returns.
using FromRun = decltype(tg::singleFlight([](tg::Feed) { return tg::Future<tg::RunResult>(); }));
static_assert(std::is_same_v<FromRun, tg::SingleFlight<tg::Feed, tg::RunResult>>);
using Explicit = decltype(tg::singleFlight<tg::Feed, tg::RunResult>(
    [](tg::Feed) { return std::future<tg::RunResult>(); }));
static_assert(std::is_same_v<Explicit, tg::SingleFlight<tg::Feed, tg::RunResult>>);

// Five overlapping calls through `flight`, whose calls finish when `release` is set: the first
// and the last complete (with the callable's value), the three in between are displaced.
template <class Flight>
void expectLatestWins(Flight flight, std::promise<void>& release) {
  std::vector<std::future<tg::SingleFlightResult<int>>> calls;
  for (int i = 1; i <= 5; ++i) calls.push_back(flight(std::string(static_cast<size_t>(i), 'x')));
  release.set_value();
  std::vector<tg::ResultKind> kinds;
  std::vector<int> values;
  for (auto& c : calls) {
    const tg::SingleFlightResult<int> r = rt_test::await(std::move(c));
    kinds.push_back(r.kind);
    if (r.value) values.push_back(*r.value);
  }
  using K = tg::ResultKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::Completed, K::Aborted, K::Aborted, K::Aborted, K::Completed}));
  EXPECT_EQ(values, (std::vector<int>{1, 5}));
}

// A callable whose calls wait for `release`, then give the argument's length.
auto gated(std::shared_future<void> release) {
  return [release](const std::string& s) {
    return std::async(std::launch::async, [release, s] {
      release.wait();
      return static_cast<int>(s.size());
    });
  };
}

TEST(SingleFlight, DeducesItsTypesFromALambda) {
  std::promise<void> release;
  auto flight = tg::singleFlight(gated(release.get_future().share()));
  static_assert(std::is_same_v<decltype(flight), tg::SingleFlight<std::string, int>>);
  expectLatestWins(std::move(flight), release);
}

TEST(SingleFlight, ExplicitTypesStillWork) {
  std::promise<void> release;
  expectLatestWins(tg::singleFlight<std::string, int>(gated(release.get_future().share())), release);
}

}  // namespace
