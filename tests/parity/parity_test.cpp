// Every parity case against upstream's golden (tests/parity/README.md): the dispatched kernels
// and their geometry, every kernel's output at every step, the losses, the initial and final
// parameters and the attached forwards' outputs, all bit for bit. A failure names the first step
// and the first kernel (op index, kind, the user's call site) whose output differs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "parity_golden.h"

namespace tg_parity {
namespace {

// The dispatched kernels, their order, form and geometry:
// [opIndex, kind, threads, workgroupSize, variant].
::testing::AssertionResult sameKernels(const tg::CompiledIR& ir, const json& golden) {
  const auto ours = dispatched(ir);
  if (ours.size() != golden.size()) {
    return ::testing::AssertionFailure()
           << ours.size() << " kernels dispatched, upstream dispatches " << golden.size();
  }
  for (size_t j = 0; j < ours.size(); ++j) {
    const tg::KernelSpec& k = *ours[j];
    const json& g = golden[j];
    if (k.opIndex != g[0].get<int>() || tg::opKindName(k.kind) != g[1].get<std::string>() ||
        k.threads != g[2].get<int64_t>() || k.workgroupSize != g[3].get<int>() ||
        variantOf(k) != g[4].get<std::string>()) {
      return ::testing::AssertionFailure()
             << "kernel " << j << " (" << describe(ir, k.opIndex) << "): ours dispatches op "
             << k.opIndex << " " << tg::opKindName(k.kind) << " (" << variantOf(k) << ") with "
             << k.threads << " threads in workgroups of " << k.workgroupSize << ", upstream op "
             << g[0] << " " << g[1] << " (" << g[4].get<std::string>() << ") with " << g[2]
             << " threads in workgroups of " << g[3];
    }
  }
  return ::testing::AssertionSuccess();
}

// One step's (or run's) kernel outputs against upstream's 8-byte digests: the first that differs.
::testing::AssertionResult sameTrace(const tg::CompiledIR& ir, const std::vector<tg::KernelOutput>& ours,
                                     const std::string& golden) {
  const TraceDifference d = firstDifference(ours, golden);
  if (d.kernel < 0) return ::testing::AssertionSuccess();
  if (d.countMismatch) {
    return ::testing::AssertionFailure() << ours.size() << " kernel outputs, upstream's trace has "
                                         << d.upstreamCount;
  }
  const tg::KernelOutput& k = ours[static_cast<size_t>(d.kernel)];
  return ::testing::AssertionFailure()
         << "kernel " << d.kernel << " of " << ours.size() << " (" << describe(ir, k.opIndex)
         << ") is the first whose output differs from upstream's (digest " << d.ours << " vs "
         << d.upstream << "; ours starts " << head(k.values) << ")";
}

// Runs the case on the device `options` select and checks it against `golden`.
void expectBitForBit(const std::string& name, const json& golden, const tg::RuntimeOptions& options) {
  const Case& c = *std::find_if(cases().begin(), cases().end(),
                                [&](const Case& x) { return x.name == name; });
  const Recorded r = c.run(options);

  const auto badInit = paramsDiffering(r.initialParams, golden["initialParams"]);
  ASSERT_TRUE(badInit.empty()) << "initial parameters differ from upstream's: " << join(badInit);
  ASSERT_TRUE(sameKernels(*r.ir, golden["kernels"]));

  const bool training = golden.contains("losses");
  const size_t steps = golden["trace"].size();
  ASSERT_EQ(r.trace.size(), steps) << "steps recorded";
  for (size_t s = 0; s < steps; ++s) {
    ASSERT_TRUE(sameTrace(*r.ir, r.trace[s], golden["trace"][s].get<std::string>()))
        << (training ? "step " : "run ") << s;
    if (training) {
      ASSERT_EQ(bits(r.losses[s]), golden["losses"][s].get<std::string>())
          << "step " << s << ": loss " << r.losses[s] << " vs upstream's " << golden["lossValues"][s]
          << " (every kernel output matched, so the step's scalars or feeds differ)";
    } else {
      ASSERT_EQ(sha256(r.outputs[s]), golden["outputs"][s]["sha256"].get<std::string>())
          << "run " << s << " output";
    }
  }
  const auto badFinal = paramsDiffering(r.finalParams, golden["finalParams"]);
  EXPECT_TRUE(badFinal.empty()) << "final parameters differ from upstream's: " << join(badFinal);

  const json forwards = golden.value("forwards", json::array());
  ASSERT_EQ(r.forwards.size(), forwards.size()) << "attached forwards";
  for (size_t f = 0; f < forwards.size(); ++f) {
    const Recorded::Forward& ours = r.forwards[f];
    const json& g = forwards[f];
    SCOPED_TRACE("forward '" + ours.name + "'");
    ASSERT_EQ(ours.name, g["name"].get<std::string>());
    ASSERT_TRUE(sameKernels(*ours.ir, g["kernels"]));
    ASSERT_TRUE(sameTrace(*ours.ir, ours.trace, g["trace"].get<std::string>()));
    const tg::TensorInfo& out = ours.ir->graph.tensor(ours.ir->output);
    EXPECT_EQ(out.shape, g["shape"].get<tg::Shape>());
    EXPECT_EQ(tg::dtypeName(out.dtype), g["dtype"].get<std::string>());
    EXPECT_EQ(sha256(ours.output), g["sha256"].get<std::string>())
        << "output starts " << head(ours.output);
  }
}

// Upstream in Dawn for Node (GL ES on llvmpipe), replayed on the default device: lavapipe.
class Upstream : public ::testing::TestWithParam<std::string> {};

TEST_P(Upstream, BitForBit) {
  tg::RuntimeOptions options;
  options.cacheDir = TG_TEST_CACHE_DIR;
  expectBitForBit(GetParam(), loadGolden(GetParam()), options);
}

// Upstream in headless Chromium (WebGPU on SwiftShader), replayed on Chromium's own SwiftShader
// driver: the browser's bits, kernel for kernel.
class Chromium : public ::testing::TestWithParam<std::string> {};

TEST_P(Chromium, BitForBitOnSwiftShader) {
  tg::RuntimeOptions options;
  options.cacheDir = TG_TEST_CACHE_DIR;
  options.vulkanDriver = "swiftshader";
  expectBitForBit(GetParam(), loadGolden(GetParam() + ".chromium"), options);
}

// Together the goldens dispatch every op kind in every form upstream's codegen has for it, so a
// change to any branch of ours is checked against upstream somewhere.
TEST(Coverage, EveryKernelVariant) {
  std::set<std::pair<std::string, std::string>> seen;
  const auto collect = [&](const json& kernels) {
    for (const json& k : kernels) seen.emplace(k[1].get<std::string>(), k[4].get<std::string>());
  };
  for (const Case& c : cases()) {
    const json golden = loadGolden(c.name);
    collect(golden["kernels"]);
    for (const json& f : golden.value("forwards", json::array())) collect(f["kernels"]);
  }
  std::set<std::pair<std::string, std::string>> required;
  for (int k = 0; k < tg::kOpKindCount; ++k) {
    const auto kind = static_cast<tg::OpKind>(k);
    if (kind == tg::OpKind::ParamInput || kind == tg::OpKind::TensorInput || kind == tg::OpKind::StateInput)
      continue;  // graph inputs dispatch nothing
    const std::string name(tg::opKindName(kind));
    required.emplace(name, kind == tg::OpKind::ConstScalar ? "single" : "thread");
  }
  for (const char* name : {"mean_last", "sum_last", "sum_to_shape", "matmul", "conv2d_weight_grad"})
    required.emplace(name, "tree");
  for (const char* name : {"matmul", "matmul_batched"}) required.emplace(name, "tiled");
  std::vector<std::string> missing;
  for (const auto& [kind, variant] : required) {
    if (!seen.contains({kind, variant})) missing.push_back(kind + " (" + variant + ")");
  }
  EXPECT_TRUE(missing.empty()) << "no golden dispatches " << join(missing);
  for (const auto& [kind, variant] : seen) {
    EXPECT_TRUE(required.contains({kind, variant})) << kind << " (" << variant << ") is a form this test does not know";
  }
}

std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  for (const Case& c : cases()) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Parity, Upstream, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(Parity, Chromium, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace tg_parity
