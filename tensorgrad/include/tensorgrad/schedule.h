// Dispatch scheduling: a step's kernels run in op order unless reordered, and every kernel that
// touches a buffer an earlier one wrote (or reads one a later one overwrites) needs a barrier in
// between. Grouping kernels into levels — each level's kernels touch no buffer another kernel of
// the level writes — and dispatching level by level leaves one barrier per level instead of
// nearly one per kernel. Hazards are computed on buffer ids, so pooled buffers are respected.
#pragma once

#include "tensorgrad/codegen.h"

namespace tg {

struct DispatchSchedule {
  std::vector<size_t> order;  // indices into the kernel list, dispatching kernels only
  std::vector<int> level;     // by kernel index; 0 for kernels that dispatch nothing
  int levels = 0;
};

// Kernels read every binding but the last and write the last (codegen's convention).
DispatchSchedule scheduleDispatches(const std::vector<KernelSpec>& kernels);

}  // namespace tg
