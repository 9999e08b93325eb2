// Golden runs in a GoogleTest suite: the first run (or any run with TG_UPDATE_GOLDENS=1) writes
// the golden file; later runs must reproduce its loss bits, parameters and captures.
//
//   TEST(MyModel, TrainsAsBefore) {
//     auto train = tg::compile(mySpec(model));
//     tg::parity::expectMatchesGolden(train, feeds, "tests/golden/my_model.json");
//   }
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "tensorgrad/parity.h"

namespace tg::parity {

template <class M>
::testing::AssertionResult matchesGolden(const CompiledTraining<M>& training,
                                         const std::vector<Feed>& feeds,
                                         const std::filesystem::path& golden) {
  Golden run;
  try {
    run = recordGolden(training, feeds);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << e.what();
  }
  const char* update = std::getenv("TG_UPDATE_GOLDENS");
  if ((update && *update && std::string(update) != "0") || !std::filesystem::exists(golden)) {
    saveGolden(run, golden);
    return ::testing::AssertionSuccess() << "wrote " << golden.string();
  }
  const std::string diff = compareGolden(loadGolden(golden), run);
  if (diff.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the run differs from " << golden.string() << ":\n"
                                       << diff << "(TG_UPDATE_GOLDENS=1 rewrites it)";
}

template <class M>
void expectMatchesGolden(const CompiledTraining<M>& training, const std::vector<Feed>& feeds,
                         const std::filesystem::path& golden) {
  EXPECT_TRUE(matchesGolden(training, feeds, golden));
}

}  // namespace tg::parity
