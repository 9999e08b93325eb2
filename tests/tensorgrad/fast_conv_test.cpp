// The fast kernel set's convolutions (ops/conv_fast.h): conv2d and its input and weight gradients
// as implicit products of 4 × 4 blocks, against the CPU evaluator on lavapipe and in Dawn for
// Node, under the GPU's tilings (8 × 16 blocks in 4 slices; a weight gradient over 1024
// positions or more in 256 slices) and a CPU device's (16 × 16 blocks in one slice). Geometries:
// the mnist sample's (3 × 3, padding 1) with channel counts that are not multiples of 4 (clamped
// rows and columns), stride 2 over odd sizes (input positions no window reaches), a 5 × 3 kernel
// with uneven strides and padding, a 1 × 1 kernel, and a batch of 1,088 output positions (the
// sliced weight gradient). A grouped convolution keeps upstream's kernels.
#include <gtest/gtest.h>

#include "gpu_oracle.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};
constexpr tg::EmitOptions kFastOnCpu{.kernels = tg::KernelSet::Fast, .cpuDevice = true};

struct Conv {
  tg::Shape x, w;
  tg::Conv2dOptions options{};
};

std::vector<Conv> convs() {
  return {
      {{2, 5, 9, 8}, {6, 5, 3, 3}, {.padding = 1}},
      {{2, 3, 11, 9}, {4, 3, 3, 3}, {.stride = 2, .padding = 1}},
      {{1, 4, 10, 12}, {7, 4, 5, 3}, {.stride = {1, 2}, .padding = {2, 0}}},
      {{3, 8, 5, 5}, {4, 8, 1, 1}},
      {{4, 3, 17, 16}, {8, 3, 3, 3}, {.padding = 1}},  // 4·17·16 = 1,088 positions
      {{2, 4, 6, 6}, {4, 2, 3, 3}, {.padding = 1, .groups = 2}},
  };
}

struct Case {
  tg::Graph graph;
  tg::GradResult grads;
  tg::EvalInputs env;
};

// One loss over every convolution, Σ conv(x, w) · r with r random, so dy is too; its gradients
// with respect to x and w are the input and weight gradients.
Case convsCase() {
  const std::vector<Conv> cs = convs();
  Case c;
  c.graph = tg::traceFn([&] {
    std::optional<tg::Tensor> loss;
    for (size_t i = 0; i < cs.size(); ++i) {
      const std::string s = std::to_string(i);
      const tg::Tensor y =
          tg::conv2d(tg::paramInput("x" + s, cs[i].x), tg::paramInput("w" + s, cs[i].w), cs[i].options);
      const tg::Tensor term = tg::sum(tg::mul(y, tg::paramInput("r" + s, y.shape())));
      loss = loss ? tg::add(*loss, term) : term;
    }
    return std::vector<tg::Tensor>{*loss};
  });
  c.grads = tg::appendGrad(c.graph);
  c.env = tg_test::uniformParams(c.graph, 70);
  return c;
}

size_t fastConvKernels(const Case& c, tg::EmitOptions options) {
  const tg::BufferPlan plan = tg::planBuffers(c.graph, c.grads.paramGrads, {});
  size_t n = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(c.graph, plan, options))
    n += k.wgsl.starts_with("// fast conv");
  return n;
}

TEST(FastConv, EveryUngroupedConvolutionAndItsGradientsUseTheFastKernels) {
  const Case c = convsCase();
  const size_t ungrouped = convs().size() - 1;
  EXPECT_EQ(fastConvKernels(c, kFast), 3 * ungrouped);
  EXPECT_EQ(fastConvKernels(c, kFastOnCpu), 3 * ungrouped);
  EXPECT_EQ(fastConvKernels(c, {}), 0u);  // the default set stays upstream's
  // The long weight gradient is the one split into slices on a GPU.
  const tg::BufferPlan plan = tg::planBuffers(c.graph, c.grads.paramGrads, {});
  size_t sliced = 0;
  for (const tg::KernelSpec& k : tg::emitKernels(c.graph, plan, kFast))
    sliced += k.wgsl.starts_with("// fast conv: conv2d_weight_grad") &&
              k.wgsl.find("256 slices") != std::string::npos;
  EXPECT_EQ(sliced, 1u);
}

TEST(FastConv, MatchesCpuOnLavapipe) {
  const Case c = convsCase();
  for (const tg::EmitOptions options : {kFast, kFastOnCpu})
    tg_test::expectGpuMatchesCpu(tg_test::Backend::Shim, c.graph, c.grads.paramGrads, {}, c.env,
                                 kRtol, kAtol, options);
}

TEST(FastConv, MatchesCpuInDawn) {
  const Case c = convsCase();
  for (const tg::EmitOptions options : {kFast, kFastOnCpu})
    tg_test::expectGpuMatchesCpu(tg_test::Backend::Dawn, c.graph, c.grads.paramGrads, {}, c.env,
                                 kRtol, kAtol, options);
}

}  // namespace
