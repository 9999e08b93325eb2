// WGSL codegen: one compute kernel per op, shapes baked in as constants, workgroup size 256,
// inputs bound first (read) and the output last (read_write), a 1-D thread count split over a
// 2-D grid past 65535 workgroups. The WGSL text is the artifact: dumpable and browser-valid.
#pragma once

#include <array>

#include "tensorgrad/passes.h"

namespace tg {

inline constexpr int kWorkgroupSize = 256;
inline constexpr uint32_t kMaxWorkgroupsPerDim = 65535;

struct KernelSpec {
  int opIndex = -1;
  OpKind kind{};
  std::string wgsl;           // empty for ops that need no dispatch (graph inputs)
  std::vector<int> bindings;  // buffer ids for @group(0) @binding(0..n)
  int64_t threads = 0;
  int workgroupSize = kWorkgroupSize;
  // Workgroups to dispatch: x up to 65535, the rest in y.
  std::array<uint32_t, 2> dispatch() const;
};

std::vector<KernelSpec> emitKernels(const Graph& graph, const BufferPlan& plan);

}  // namespace tg
