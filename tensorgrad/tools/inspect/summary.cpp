// The summary: how many ops, kernels, distinct pipelines and barrier levels; buffers and bytes by
// kind, with what pooling shares; kernels per op kind.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

Summary summarize(const Subject& s) {
  Summary sum;
  const tg::BufferPlan& plan = s.ir.plan;
  sum.ops = s.ir.graph.ops.size();
  sum.kernels = s.kernels.size();
  std::set<std::string_view> texts;
  std::map<std::string, size_t> byKind;
  for (size_t i : s.kernels) {
    texts.insert(s.ir.kernels[i].wgsl);
    ++byKind[std::string(tg::opKindName(s.ir.kernels[i].kind))];
  }
  sum.pipelines = texts.size();
  sum.levels = static_cast<size_t>(s.schedule.levels);
  sum.buffers = plan.buffers.size();
  sum.totalBytes = plan.totalBytes();
  for (auto kind : {tg::BufferSpec::Kind::Param, tg::BufferSpec::Kind::ParamGrad,
                    tg::BufferSpec::Kind::State, tg::BufferSpec::Kind::TensorInput,
                    tg::BufferSpec::Kind::Intermediate, tg::BufferSpec::Kind::Output}) {
    Summary::Kind k{std::string(tg::bufferKindName(kind)), 0, 0};
    // A view of a buffer of its own kind (an arena's, a shared intermediate's) is counted there.
    const auto counted = [&](const tg::BufferSpec& b) {
      return b.parent < 0 || plan.buffers.at(static_cast<size_t>(b.parent)).kind != b.kind;
    };
    for (const tg::BufferSpec& b : plan.buffers)
      if (b.kind == kind && counted(b)) {
        ++k.buffers;
        k.bytes += b.byteSize;
      }
    sum.byKind.push_back(std::move(k));
  }
  std::map<int, size_t> tensorsPerBuffer;
  for (int b : plan.tensorToBuffer) {
    if (b < 0) continue;
    const int parent = plan.buffers.at(static_cast<size_t>(b)).parent;
    ++tensorsPerBuffer[parent >= 0 ? parent : b];
  }
  sum.tensors = 0;
  for (const auto& [b, n] : tensorsPerBuffer) {
    sum.tensors += n;
    if (n > 1 && plan.buffers.at(static_cast<size_t>(b)).kind == tg::BufferSpec::Kind::Intermediate)
      sum.pooledTensors += n;
  }
  sum.unpooledIntermediateBytes = plan.unpooledIntermediateBytes;
  sum.kernelsByKind.assign(byKind.begin(), byKind.end());
  std::stable_sort(sum.kernelsByKind.begin(), sum.kernelsByKind.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (Phase p : opPhases(s.ir)) ++sum.opsByPhase[static_cast<size_t>(p)];
  return sum;
}

namespace {

std::string bytesText(int64_t bytes) {
  char t[64];
  if (bytes >= (int64_t{1} << 20))
    std::snprintf(t, sizeof t, "%lld B (%.2f MiB)", static_cast<long long>(bytes),
                  static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(t, sizeof t, "%lld B (%.1f KiB)", static_cast<long long>(bytes),
                  static_cast<double>(bytes) / 1024);
  else
    std::snprintf(t, sizeof t, "%lld B", static_cast<long long>(bytes));
  return t;
}

}  // namespace

std::string summaryText(const Subject& s, const Summary& sum) {
  std::ostringstream os;
  os << s.title << "\n  " << s.options << "\n\n";
  os << "ops                 " << sum.ops << " (forward " << sum.opsByPhase[0] << ", backward "
     << sum.opsByPhase[1] << ", optimizer " << sum.opsByPhase[2] << ")\n";
  os << "kernels             " << sum.kernels << "\n";
  os << "distinct pipelines  " << sum.pipelines << "\n";
  os << "dispatch levels     " << sum.levels << " (one barrier each)\n";
  os << "buffers             " << sum.buffers << " holding " << sum.tensors << " tensors, "
     << bytesText(sum.totalBytes) << "\n";
  for (const Summary::Kind& k : sum.byKind) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-14s %5zu buffers  %s\n", k.name.c_str(), k.buffers,
                  bytesText(k.bytes).c_str());
    os << line;
  }
  if (sum.pooledTensors > 0)
    os << "pooling             " << sum.pooledTensors
       << " intermediates share buffers; own buffers would take "
       << bytesText(sum.unpooledIntermediateBytes) << "\n";
  else
    os << "pooling             none: every intermediate has its own buffer\n";
  os << "kernels by op kind\n";
  for (const auto& [kind, n] : sum.kernelsByKind) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-20s %5zu\n", kind.c_str(), n);
    os << line;
  }
  return os.str();
}

nlohmann::json summaryJson(const Summary& sum) {
  nlohmann::json kinds = nlohmann::json::object();
  for (const Summary::Kind& k : sum.byKind)
    kinds[k.name] = {{"buffers", k.buffers}, {"bytes", k.bytes}};
  nlohmann::json perKind = nlohmann::json::object();
  for (const auto& [kind, n] : sum.kernelsByKind) perKind[kind] = n;
  return {{"ops", sum.ops},
          {"opsByPhase",
           {{"forward", sum.opsByPhase[0]},
            {"backward", sum.opsByPhase[1]},
            {"optimizer", sum.opsByPhase[2]}}},
          {"kernels", sum.kernels},
          {"pipelines", sum.pipelines},
          {"levels", sum.levels},
          {"buffers", sum.buffers},
          {"tensors", sum.tensors},
          {"totalBytes", sum.totalBytes},
          {"bufferKinds", kinds},
          {"pooledTensors", sum.pooledTensors},
          {"unpooledIntermediateBytes", sum.unpooledIntermediateBytes},
          {"kernelsByKind", perKind}};
}

}  // namespace tg_inspect
