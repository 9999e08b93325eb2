#include "tensorgrad/codegen.h"

#include "../ops/op_registry.h"

namespace tg {

std::array<uint32_t, 2> KernelSpec::dispatch() const {
  if (threads == 0) return {0, 0};
  const int64_t groups = (threads + workgroupSize - 1) / workgroupSize;
  if (groups <= kMaxWorkgroupsPerDim) return {static_cast<uint32_t>(groups), 1};
  return {kMaxWorkgroupsPerDim, static_cast<uint32_t>((groups + kMaxWorkgroupsPerDim - 1) / kMaxWorkgroupsPerDim)};
}

std::vector<KernelSpec> emitKernels(const Graph& graph, const BufferPlan& plan) {
  std::vector<KernelSpec> kernels;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    const detail::OpDef& def = detail::opDef(op.kind);
    KernelSpec k;
    k.opIndex = static_cast<int>(i);
    k.kind = op.kind;
    if (def.kernel) {
      detail::KernelSource src = def.kernel(detail::KernelArgs{op, graph, def});
      k.wgsl = std::move(src.wgsl);
      k.threads = src.threads;
      k.workgroupSize = src.workgroupSize;
      for (int in : op.inputs) k.bindings.push_back(plan.tensorToBuffer.at(static_cast<size_t>(in)));
      k.bindings.push_back(plan.tensorToBuffer.at(static_cast<size_t>(op.out)));
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace tg
