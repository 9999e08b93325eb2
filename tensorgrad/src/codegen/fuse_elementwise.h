// Element-wise fusion (EmitOptions::fuseElementwise; always on under KernelSet::Fast): chains of
// ops with an `expr` in the op registry become one kernel when the values between them have no
// other reader and live in no buffer anything else needs. Broadcasts, reshapes and permutes join
// as their consumers' indexing (fused_chain.h).
#pragma once

#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

// Which ops join which kernel: members[i] lists the ops the kernel at op i computes, in op order
// (empty when op i was folded into a later kernel). Ops with `elsewhere[i]` set (computed inside
// another kernel, e.g. a permute folded into a matmul) join no group.
std::vector<std::vector<int>> fuseGroups(const Graph& graph, const BufferUse& use,
                                         const std::vector<bool>& elsewhere);

// The kernel computing `ops` (a group of fuseGroups), one invocation per output element.
KernelSpec fusedKernel(const Graph& graph, const BufferPlan& plan, const std::vector<int>& ops);

}  // namespace tg::detail
