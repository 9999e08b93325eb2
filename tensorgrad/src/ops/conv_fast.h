// Convolution geometry shared by conv.cpp's kernels and the fast kernel set's (KernelSet::Fast)
// convolutions, which compute conv2d and its input and weight gradients as implicit matrix
// products: each invocation sums a 4×4 block of outputs (4 output channels by 4 positions, or 4
// channels by 4 taps), loading 8 values for 16 multiply-adds where upstream's thread per output
// loads 2 for 1. On lavapipe, whose per-lane loads cost most of a kernel's time (bench/RESULTS.md,
// twenty-third session), that is what the mnist sample's step is made of; on a GPU the weight
// gradient's long sum is split over 256 slices a workgroup. Sums run in another order than
// upstream's, so they are tested against the CPU evaluator within a tolerance. Groups of 1 only:
// a grouped convolution keeps upstream's kernels.
#pragma once

#include "../codegen/wgsl.h"

namespace tg::detail {

struct ConvGeometry {
  int64_t batch, cIn, h, w, cOut, cInPerG, kH, kW, hOut, wOut, groups, sH, sW, pH, pW;
  int64_t cOutPerG() const { return cOut / groups; }
};

inline ConvGeometry convGeometry(const Shape& input, const Shape& weight, const Shape& out,
                                 const OpAttrs& at) {
  return {input[0], input[1], input[2],  input[3],   weight[0],  weight[1], weight[2], weight[3],
          out[2],   out[3],   at.groups, at.strideH, at.strideW, at.padH,   at.padW};
}

// WGSL text for geometry constants: signed, since padded coordinates go negative.
inline std::string si(int64_t v) {
  return std::to_string(v) + "i";
}

// Empty (upstream's kernel serves) for a grouped convolution.
KernelSource fastConv2dKernel(const KernelArgs& a);
KernelSource fastConv2dInputGradKernel(const KernelArgs& a);
KernelSource fastConv2dWeightGradKernel(const KernelArgs& a);

}  // namespace tg::detail
