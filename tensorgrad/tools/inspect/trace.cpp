// The profile as a timeline in the Chrome trace event format, which Perfetto's UI
// (https://ui.perfetto.dev) and chrome://tracing open. One step is laid out from the profile's
// per-kernel costs and the schedule: the dispatch levels run one after another (a barrier between
// them), every kernel of a level starts with it, and a level lasts as long as its slowest kernel.
// That is a model of the step, not a recording (the kernels were timed alone, and kernels of one
// level overlap on the device in ways a per-kernel time cannot show); the trace says so in its
// metadata. Where the profile timed each level inside the step (timestamp queries), a second
// process holds those measured levels end to end, beside the model.
#include <algorithm>

#include "inspect.h"

namespace tg_inspect {
namespace {

constexpr int kPid = 1;
constexpr int kMeasuredPid = 2;  // the levels as timed inside the step
constexpr int kLevelTrack = 0;   // tid of the dispatch levels; kernels take 1, 2, ... in a level

nlohmann::json metadata(const std::string& what, int tid, const std::string& name, int pid = kPid) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

nlohmann::json traceJson(const Subject& s, const Profile& p) {
  const std::vector<KernelRow> rows = kernelRows(s);
  std::vector<double> costUs(rows.size(), 0.0);
  std::vector<const KernelCost*> cost(rows.size(), nullptr);
  for (const KernelCost& c : p.kernels) {
    if (c.index >= rows.size()) throw std::logic_error("trace: a profile of another subject");
    cost[c.index] = &c;
  }
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata("process_name", kLevelTrack, s.title + " on " + p.device));
  events.push_back(metadata("thread_name", kLevelTrack, "dispatch levels"));
  size_t widest = 0;
  double t = 0;
  const std::vector<LevelRow> levels = levelRows(s);
  for (const LevelRow& level : levels) {
    double longest = 0;
    for (size_t i : level.kernels) longest = std::max(longest, cost[i] ? cost[i]->us : 0.0);
    events.push_back({{"name", "level " + std::to_string(level.level)},
                      {"cat", "level"},
                      {"ph", "X"},
                      {"pid", kPid},
                      {"tid", kLevelTrack},
                      {"ts", t},
                      {"dur", longest},
                      {"args", {{"kernels", level.kernels.size()}}}});
    for (size_t lane = 0; lane < level.kernels.size(); ++lane) {
      const KernelRow& r = rows[level.kernels[lane]];
      const KernelCost* c = cost[r.index];
      const double us = c ? c->us : 0.0;
      nlohmann::json args = {
          {"kernel", r.index},
          {"op", r.opIndex},
          {"kind", r.kind},
          {"phase", r.phase},
          {"output", r.output},
          {"call site", r.site},
          {"threads", r.threads},
          {"workgroups", std::to_string(r.workgroups[0]) + "x" + std::to_string(r.workgroups[1]) +
                             " of " + std::to_string(r.workgroupSize)},
          {"fused ops", r.fusedOps}};
      if (c) {
        // bytes / µs = MB/s, so / 1e3 for GB/s (profile.cpp's estimates).
        args["bytes"] = c->bytes;
        args["flops"] = c->flops;
        args["GB/s"] = us > 0 ? c->bytes / us / 1e3 : 0.0;
        args["GFLOP/s"] = us > 0 ? c->flops / us / 1e3 : 0.0;
      }
      events.push_back({{"name", r.kind + " " + r.output},
                        {"cat", r.phase},
                        {"ph", "X"},
                        {"pid", kPid},
                        {"tid", static_cast<int>(lane) + 1},
                        {"ts", t},
                        {"dur", us},
                        {"args", std::move(args)}});
    }
    widest = std::max(widest, level.kernels.size());
    t += longest;
  }
  for (size_t lane = 1; lane <= widest; ++lane)
    events.push_back(
        metadata("thread_name", static_cast<int>(lane), "kernels, lane " + std::to_string(lane)));
  double measured = 0;
  if (p.levelInStepUs.size() == levels.size()) {
    events.push_back(metadata("process_name", kLevelTrack,
                              s.title + " on " + p.device + ", measured inside the step",
                              kMeasuredPid));
    events.push_back(
        metadata("thread_name", kLevelTrack, "dispatch levels (timestamps)", kMeasuredPid));
    for (size_t l = 0; l < levels.size(); ++l) {
      events.push_back({{"name", "level " + std::to_string(levels[l].level)},
                        {"cat", "measured level"},
                        {"ph", "X"},
                        {"pid", kMeasuredPid},
                        {"tid", kLevelTrack},
                        {"ts", measured},
                        {"dur", p.levelInStepUs[l]},
                        {"args", {{"kernels", levels[l].kernels.size()}}}});
      measured += p.levelInStepUs[l];
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"metadata",
           {{"tool", "tg-inspect profile"},
            {"subject", s.title},
            {"options", s.options},
            {"device", p.device},
            {"reps", p.reps},
            {"serial GPU cost us", p.totalUs()},
            {"modelled step us", t},
            {"measured step us", measured},
            {"note",
             "each kernel timed alone (tg-inspect profile); levels laid end to end, each as long "
             "as its slowest kernel: a model of one step, not a recording"}}}};
}

}  // namespace tg_inspect
