// The buffer plan with lifetimes (the first and last kernel that touches each buffer, in
// dispatch order) and the schedule's levels: which kernels each barrier-separated level holds.
#include <algorithm>
#include <map>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

std::vector<BufferRow> bufferRows(const Subject& s) {
  const tg::BufferPlan& plan = s.ir.plan;
  std::vector<BufferRow> rows;
  for (const tg::BufferSpec& b : plan.buffers) {
    // An unnamed view (an intermediate sharing a buffer across levels) says where it lives.
    const std::string name =
        b.name.empty() && b.parent >= 0 ? "in buffer " + std::to_string(b.parent) : b.name;
    rows.push_back({b.id, std::string(tg::bufferKindName(b.kind)), name,
                    std::string(tg::dtypeName(b.dtype)), shapeText(b.shape), b.byteSize, 0,
                    std::nullopt, std::nullopt});
  }
  for (int b : plan.tensorToBuffer)
    if (b >= 0 && static_cast<size_t>(b) < rows.size()) ++rows[static_cast<size_t>(b)].tensors;
  for (size_t i = 0; i < s.kernels.size(); ++i)
    for (int b : s.ir.kernels[s.kernels[i]].bindings) {
      BufferRow& r = rows.at(static_cast<size_t>(b));
      if (!r.first) r.first = i;
      r.last = i;
    }
  return rows;
}

std::string planText(const Subject& s) {
  std::ostringstream os;
  os << s.title << ": " << s.ir.plan.report() << "\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%5s %-13s %-4s %-18s %12s %7s %13s  %s\n", "buf", "kind",
                "type", "shape", "bytes", "tensors", "live kernels", "name");
  os << line;
  for (const BufferRow& r : bufferRows(s)) {
    const std::string live =
        r.first ? std::to_string(*r.first) + ".." + std::to_string(*r.last) : "-";
    std::snprintf(line, sizeof line, "%5d %-13s %-4s %-18s %12lld %7zu %13s  %s\n", r.id,
                  r.kind.c_str(), r.dtype.c_str(), r.shape.c_str(), static_cast<long long>(r.bytes),
                  r.tensors, live.c_str(), r.name.c_str());
    os << line;
  }
  return os.str();
}

std::vector<LevelRow> levelRows(const Subject& s) {
  std::vector<LevelRow> rows(static_cast<size_t>(std::max(0, s.schedule.levels)));
  std::map<size_t, size_t> dispatchIndex;  // kernel list index → dispatch index
  for (size_t i = 0; i < s.kernels.size(); ++i) dispatchIndex[s.kernels[i]] = i;
  // In the schedule's order, as the runtime dispatches them (most work first within a level).
  for (size_t k : s.schedule.order) {
    // Levels count from 1.
    LevelRow& r = rows.at(static_cast<size_t>(s.schedule.level.at(k) - 1));
    r.kernels.push_back(dispatchIndex.at(k));
    r.longestLoop = std::max(r.longestLoop, s.ir.kernels[k].loopLength);
  }
  for (size_t l = 0; l < rows.size(); ++l) {
    rows[l].level = static_cast<int>(l) + 1;
    std::map<std::string, size_t> kinds;
    for (size_t i : rows[l].kernels)
      ++kinds[std::string(tg::opKindName(s.ir.kernels[s.kernels[i]].kind))];
    rows[l].kinds.assign(kinds.begin(), kinds.end());
  }
  return rows;
}

std::string scheduleText(const Subject& s) {
  std::ostringstream os;
  os << s.title << ": " << s.kernels.size() << " kernels in " << s.schedule.levels
     << " levels (a barrier between levels; kernels of a level touch no buffer another of it "
        "writes, and dispatch in the order listed)\n\n";
  for (const LevelRow& r : levelRows(s)) {
    std::string kinds, kernels;
    for (const auto& [kind, n] : r.kinds)
      kinds += (kinds.empty() ? "" : ", ") + kind + (n > 1 ? " x" + std::to_string(n) : "");
    for (size_t i : r.kernels) kernels += (kernels.empty() ? "" : " ") + std::to_string(i);
    char head[96];
    std::snprintf(head, sizeof head, "level %4d  %4zu kernels  longest loop %6lld  ", r.level,
                  r.kernels.size(), static_cast<long long>(r.longestLoop));
    os << head << kinds << "\n            kernels " << kernels << "\n";
  }
  return os.str();
}

}  // namespace tg_inspect
