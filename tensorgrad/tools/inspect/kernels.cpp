// One row per dispatched kernel: op, phase, the user's call site, dispatch size, bindings, the
// level the scheduler gave it and which distinct pipeline (WGSL text) it uses.
#include <algorithm>
#include <map>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

std::string_view phaseName(Phase phase) {
  switch (phase) {
    case Phase::Forward:
      return "forward";
    case Phase::Backward:
      return "backward";
    case Phase::Optimizer:
      return "optimizer";
  }
  return "?";
}

std::vector<Phase> opPhases(const tg::CompiledIR& ir) {
  const size_t n = ir.graph.ops.size();
  std::vector<Phase> phases(n, Phase::Forward);
  if (ir.paramGrads.empty() || ir.output < 0) return phases;  // a forward graph
  const auto producer = [&](int tensor) -> size_t {
    const auto& src = ir.graph.tensor(tensor).source;
    return src ? static_cast<size_t>(*src) : 0;
  };
  const size_t lossOp = producer(ir.output);
  size_t lastGrad = lossOp;
  for (const auto& [name, grad] : ir.paramGrads) lastGrad = std::max(lastGrad, producer(grad));
  for (size_t i = lossOp + 1; i < n; ++i)
    phases[i] = i <= lastGrad ? Phase::Backward : Phase::Optimizer;
  return phases;
}

std::string shapeText(const tg::Shape& shape) {
  std::string t = "[";
  for (size_t i = 0; i < shape.size(); ++i) t += (i ? "," : "") + std::to_string(shape[i]);
  return t + "]";
}

namespace {

// "tg::Tensor tg_models::Attention::fwd(const tg::Tensor&, size_t) const" → "Attention::fwd"
std::string shortFunction(std::string_view f) {
  f = f.substr(0, f.find('('));
  if (const size_t space = f.rfind(' '); space != std::string_view::npos) f = f.substr(space + 1);
  // Drop namespaces but keep the class: the last two components.
  const size_t last = f.rfind("::");
  if (last != std::string_view::npos && last > 0) {
    const size_t before = f.rfind("::", last - 1);
    if (before != std::string_view::npos) f = f.substr(before + 2);
  }
  return std::string(f);
}

}  // namespace

std::string callSite(const tg::Graph& graph, const tg::Op& op) {
  const auto& site = graph.tensor(op.out).site;
  if (!site) return "";
  if (!site->frames.empty()) return "[" + site->opName + "] " + site->frames.front();
  std::string file = std::filesystem::path(site->location.file_name()).filename().string();
  std::string text = "[" + site->opName + "] " + file + ":" + std::to_string(site->location.line());
  if (*site->location.function_name() != '\0')
    text += " (" + shortFunction(site->location.function_name()) + ")";
  return text;
}

std::vector<KernelRow> kernelRows(const Subject& s) {
  const std::vector<Phase> phases = opPhases(s.ir);
  std::map<std::string_view, size_t> pipelines;
  std::vector<KernelRow> rows;
  for (size_t i = 0; i < s.kernels.size(); ++i) {
    const tg::KernelSpec& k = s.ir.kernels[s.kernels[i]];
    const tg::Op& op = s.ir.graph.ops.at(static_cast<size_t>(k.opIndex));
    const tg::TensorInfo& out = s.ir.graph.tensor(op.out);
    KernelRow r;
    r.index = i;
    r.opIndex = k.opIndex;
    r.kind = std::string(tg::opKindName(k.kind));
    r.phase = std::string(phaseName(phases.at(static_cast<size_t>(k.opIndex))));
    r.site = callSite(s.ir.graph, op);
    r.output = std::string(tg::dtypeName(out.dtype)) + shapeText(out.shape);
    r.threads = k.threads;
    r.workgroupSize = k.workgroupSize;
    r.workgroups = k.dispatch();
    r.bindings = k.bindings;
    r.level = s.schedule.level.at(s.kernels[i]);
    r.pipeline = pipelines.emplace(k.wgsl, pipelines.size()).first->second;
    r.fusedOps = k.fusedOps;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string kernelsText(const Subject& s) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%5s %5s %-20s %-9s %5s %-18s %10s %13s  %-14s %s\n", "#", "op",
                "kind", "phase", "level", "output", "threads", "workgroups", "bindings",
                "call site");
  os << line;
  for (const KernelRow& r : kernelRows(s)) {
    std::string bindings;
    for (int b : r.bindings) bindings += (bindings.empty() ? "" : ",") + std::to_string(b);
    const std::string wg = std::to_string(r.workgroups[0]) + "x" + std::to_string(r.workgroups[1]) +
                           " of " + std::to_string(r.workgroupSize);
    std::snprintf(line, sizeof line, "%5zu %5d %-20s %-9s %5d %-18s %10lld %13s  %-14s %s\n",
                  r.index, r.opIndex, r.kind.c_str(), r.phase.c_str(), r.level, r.output.c_str(),
                  static_cast<long long>(r.threads), wg.c_str(), bindings.c_str(), r.site.c_str());
    os << line;
  }
  return os.str();
}

}  // namespace tg_inspect
