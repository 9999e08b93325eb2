// Element-wise fusion (EmitOptions::fuseElementwise; always on under KernelSet::Fast): ops with
// an `expr` in the op registry become one kernel when the values between them are read only by
// ops of that kernel (one reader or several) and live in no buffer anything else needs.
// Broadcasts, reshapes and permutes join as their consumers' indexing (fused_chain.h).
#pragma once

#include <optional>
#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

// Whether op `i` may join a fused kernel: it has an `expr`, its values are f32 or bool, and it is
// not computed inside another kernel (`elsewhere[i]`, where given: a permute folded into a
// matmul, an op of the fused optimizer).
bool fusable(const Graph& graph, int i, const std::vector<bool>& elsewhere = {});

// Every value the ops of `group` read from outside it is still in its buffer at op `at` (no op
// after its reader, up to `at`, overwrites it): the group may be computed at `at` instead.
bool readableAt(const Graph& graph, const BufferUse& use, const std::vector<int>& group, int at);

// Which ops join which kernel: members[i] lists the ops the kernel at op i computes, in op order
// (empty when op i was folded into a later kernel). Ops with `elsewhere[i]` set (computed inside
// another kernel, e.g. a permute folded into a matmul) join no group.
std::vector<std::vector<int>> fuseGroups(const Graph& graph, const BufferUse& use,
                                         const std::vector<bool>& elsewhere);

// By op: the last op of the group (of fuseGroups' `groups`) computing it, else -1.
std::vector<int> groupEnds(const std::vector<std::vector<int>>& groups);
// Whether `op` is one of `group`'s.
bool inGroup(const std::vector<int>& group, int op);

// The kernel computing `ops` (a group of fuseGroups), one invocation per output element.
KernelSpec fusedKernel(const Graph& graph, const BufferPlan& plan, const std::vector<int>& ops);

// KernelSet::Fast's form of the same kernel (a group of one op too) where it applies: every
// buffer read at the output's own index (no broadcast, permute or reshape of another shape
// indexing), every buffer and the output f32, the size a multiple of 4. Then an invocation loads
// a vec4 from each input, computes the 4 elements lane by lane and stores a vec4: a quarter of the
// invocations and 16-byte accesses, toward copy bandwidth. Else nullopt.
std::optional<KernelSpec> vec4Kernel(const Graph& graph, const BufferPlan& plan,
                                     const std::vector<int>& ops);

}  // namespace tg::detail
