// Sharing buffers after codegen. The pooled plan (buffers.cpp) shares by op order before the
// kernels exist, so every fold that reads a value later or writes one earlier than its op must
// give way to a buffer's next occupant; own buffers keep every fold and the fewest levels but
// cost several times the memory. Here the kernels and their levels are known: two plain
// intermediates whose kernels' levels never meet, and whose kernels also never interleave in
// kernel order (tracing runs them so), can live in one buffer without changing a kernel, a
// level or a barrier.
#include <algorithm>

#include "tensorgrad/schedule.h"

namespace tg {

namespace {

// When a buffer is in use: the first and last level, and the first and last kernel, touching it.
struct Span {
  int firstLevel = 0, lastLevel = -1;
  size_t firstKernel = 0, lastKernel = 0;
  bool used() const { return lastLevel >= 0; }
  // Apart: at no level and at no kernel are both in use, so neither dispatching level by level
  // nor tracing kernel by kernel in op order meets both at once. A buffer no kernel touches (its
  // tensor folded away) is apart from every other.
  bool apart(const Span& o) const {
    if (!used() || !o.used()) return true;
    const bool levels = lastLevel < o.firstLevel || o.lastLevel < firstLevel;
    const bool kernels = lastKernel < o.firstKernel || o.lastKernel < firstKernel;
    return levels && kernels;
  }
};

}  // namespace

int shareBuffersAcrossLevels(BufferPlan& plan, const std::vector<KernelSpec>& kernels) {
  const size_t nb = plan.buffers.size();
  // Only anonymous intermediates of their own that neither the host nor a copy reads (outputs,
  // params, states and arenas are other kinds; a capture or a writeback source is an
  // intermediate the host or a copy reads after the kernels).
  std::vector<bool> candidate(nb, false);
  for (const BufferSpec& b : plan.buffers)
    candidate[static_cast<size_t>(b.id)] = b.kind == BufferSpec::Kind::Intermediate && b.parent < 0 && b.name.empty();
  for (const BufferSpec& b : plan.buffers)
    if (b.parent >= 0) candidate[static_cast<size_t>(b.parent)] = false;
  for (const auto& [name, id] : plan.capturesByName) candidate.at(static_cast<size_t>(id)) = false;
  for (const Writeback& w : plan.writebacks) candidate.at(static_cast<size_t>(w.source)) = false;

  const DispatchSchedule schedule = scheduleDispatches(kernels);
  std::vector<Span> span(nb);
  for (size_t k = 0; k < kernels.size(); ++k) {
    const KernelSpec& spec = kernels[k];
    const int level = schedule.level[k];
    if (level == 0) continue;  // dispatches nothing
    const auto touch = [&](int id) {
      Span& s = span.at(static_cast<size_t>(id));
      if (!s.used()) s.firstLevel = level, s.firstKernel = k;
      s.firstLevel = std::min(s.firstLevel, level);
      s.lastLevel = std::max(s.lastLevel, level);
      s.lastKernel = k;
    };
    for (int id : spec.bindings) touch(id);
    for (int id : spec.viewsRead) touch(id);
    for (int id : spec.viewsWritten) touch(id);
  }

  // Largest first, each into the smallest shared buffer whose occupants it meets nowhere; a
  // shared buffer is as large as its first occupant.
  std::vector<int> order;
  for (size_t b = 0; b < nb; ++b)
    if (candidate[b]) order.push_back(static_cast<int>(b));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return plan.buffers[static_cast<size_t>(a)].byteSize > plan.buffers[static_cast<size_t>(b)].byteSize;
  });
  struct Lane {
    int64_t bytes = 0;
    std::vector<int> occupants;
  };
  std::vector<Lane> lanes;
  for (int b : order) {
    const Span& s = span[static_cast<size_t>(b)];
    Lane* best = nullptr;
    for (Lane& lane : lanes) {
      const bool apart = std::all_of(lane.occupants.begin(), lane.occupants.end(),
                                     [&](int o) { return s.apart(span[static_cast<size_t>(o)]); });
      if (apart && (!best || lane.bytes < best->bytes)) best = &lane;
    }
    if (best)
      best->occupants.push_back(b);
    else
      lanes.push_back({plan.buffers[static_cast<size_t>(b)].byteSize, {b}});
  }

  int shared = 0;
  for (const Lane& lane : lanes) {
    if (lane.occupants.size() < 2) continue;
    const int id = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back({id, lane.bytes, Dtype::F32, {lane.bytes / 4}, BufferSpec::Kind::Intermediate,
                            "shared intermediates " + std::to_string(shared++), 0});
    for (int o : lane.occupants) {
      plan.buffers[static_cast<size_t>(o)].parent = id;
      plan.buffers[static_cast<size_t>(o)].offset = 0;
    }
  }
  return shared;
}

}  // namespace tg
