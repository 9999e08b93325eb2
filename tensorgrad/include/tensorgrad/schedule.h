// Dispatch scheduling: a step's kernels run in op order unless reordered, and every kernel that
// touches a buffer an earlier one wrote (or reads one a later one overwrites) needs a barrier in
// between. Grouping kernels into levels — each level's kernels touch no buffer another kernel of
// the level writes — and dispatching level by level leaves one barrier per level instead of
// nearly one per kernel. Hazards are computed on buffer ids, so pooled buffers are respected.
// The number of levels is the minimum (the longest dependency chain); within that, kernels with
// long per-thread loops (KernelSpec::loopLength) that have slack are gathered into shared
// levels, since a level lasts as long as its slowest kernel; within a level, the kernels with
// the most work (threads × loop length) dispatch first. Reordering independent kernels changes
// no result: every kernel computes the same values in any order.
#pragma once

#include "tensorgrad/codegen.h"

namespace tg {

struct DispatchSchedule {
  std::vector<size_t> order{};  // indices into the kernel list, dispatching kernels only
  std::vector<int> level{};   // by kernel index; 0 for kernels that dispatch nothing
  int levels = 0;
};

// Kernels read every binding but the last and write the last (codegen's convention).
DispatchSchedule scheduleDispatches(const std::vector<KernelSpec>& kernels);

// Own buffers at a fraction of their memory: plain intermediates (no output, capture, writeback
// or view parent) whose kernels' levels never meet, and whose kernels never interleave in kernel
// order either, become views of one shared buffer. Kernels, levels and barriers stay as they
// were: a buffer's occupants are used at different levels, with at least one barrier between.
// Returns the number of shared buffers made.
int shareBuffersAcrossLevels(BufferPlan& plan, const std::vector<KernelSpec>& kernels);

}  // namespace tg
