#include "tensorgrad/schedule.h"

#include <algorithm>
#include <map>

namespace tg {

DispatchSchedule scheduleDispatches(const std::vector<KernelSpec>& kernels) {
  DispatchSchedule s;
  s.level.assign(kernels.size(), 0);
  std::map<int, int> lastWrite;  // buffer → level of its latest writer
  std::map<int, int> lastRead;   // buffer → highest level reading it since that write
  for (size_t k = 0; k < kernels.size(); ++k) {
    const KernelSpec& spec = kernels[k];
    if (spec.wgsl.empty() || spec.threads == 0 || spec.bindings.empty()) continue;
    const int out = spec.bindings.back();
    int level = std::max(lastWrite[out], lastRead[out]);  // write-after-write, write-after-read
    for (size_t i = 0; i + 1 < spec.bindings.size(); ++i)
      level = std::max(level, lastWrite[spec.bindings[i]]);  // read-after-write
    ++level;
    for (size_t i = 0; i + 1 < spec.bindings.size(); ++i) {
      int& r = lastRead[spec.bindings[i]];
      r = std::max(r, level);
    }
    lastWrite[out] = level;
    lastRead[out] = level;  // a later writer must also follow this one's own reads
    s.level[k] = level;
    s.order.push_back(k);
    s.levels = std::max(s.levels, level);
  }
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](size_t a, size_t b) { return s.level[a] < s.level[b]; });
  return s;
}

}  // namespace tg
