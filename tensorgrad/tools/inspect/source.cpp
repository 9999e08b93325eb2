// Loading what to inspect: a sample model from the registry at the user's sizes, traced with no
// device, or a graph bundle's training graph (the browser's graph, this project's kernels).
#include <fstream>

#include "inspect.h"
#include <tensorgrad/models/registry.h>

namespace tg_inspect {

bool looksLikeBundle(const std::string& source) {
  return source.find('/') != std::string::npos || source.ends_with(".json") ||
         std::filesystem::is_regular_file(source);
}

const tg::KernelSpec& Subject::kernel(size_t index) const {
  if (index >= kernels.size())
    throw InputError("kernel " + std::to_string(index) + " is out of range: " + title + " has " +
                     std::to_string(kernels.size()) + " kernels (0.." +
                     std::to_string(kernels.empty() ? 0 : kernels.size() - 1) + ")");
  return ir.kernels[kernels[index]];
}

const tg::Op& Subject::opOf(size_t index) const {
  return ir.graph.ops.at(static_cast<size_t>(kernel(index).opIndex));
}

namespace {

std::string describeOptions(const SourceOptions& o) {
  return std::string(o.pool    ? "pooled buffers"
                     : o.share ? "own buffers shared across dispatch levels"
                               : "own buffers") +
         (o.fast   ? ", the fast kernel set (fused element-wise kernels)"
          : o.fuse ? ", fused element-wise kernels"
                   : ", upstream's kernels") +
         (o.fast && o.workgroupBytes > 0
              ? ", " + std::to_string(o.workgroupBytes) + " bytes of workgroup memory"
              : "") +
         (o.fast && o.cpuDevice ? ", matmuls for a CPU device" : "");
}

void finish(Subject& s, const SourceOptions& o) {
  if (!o.pool && o.share) tg::shareBuffersAcrossLevels(s.ir.plan, s.ir.kernels);
  for (size_t i = 0; i < s.ir.kernels.size(); ++i)
    if (!s.ir.kernels[i].wgsl.empty()) s.kernels.push_back(i);
  s.schedule = tg::scheduleDispatches(s.ir.kernels);
}

}  // namespace

Subject loadSubject(const SourceOptions& o) {
  Subject s;
  s.options = describeOptions(o);
  const tg::EmitOptions emit{.fuseElementwise = o.fuse,
                             .kernels = o.fast ? tg::KernelSet::Fast : tg::KernelSet::Upstream,
                             .workgroupStorageBytes = o.workgroupBytes,
                             .cpuDevice = o.cpuDevice};
  if (looksLikeBundle(o.source)) {
    if (!o.sizes.empty())
      throw InputError("--" + o.sizes.front().first +
                       ": sizes apply to sample models, not to a bundle (" + o.source + ")");
    // A TENSORGRAD_DUMP folder: its bundle.
    if (std::filesystem::is_directory(o.source)) {
      SourceOptions inFolder = o;
      inFolder.source = (std::filesystem::path(o.source) / "bundle.tgbundle.json").string();
      if (!std::filesystem::is_regular_file(inFolder.source))
        throw InputError(o.source + " is a folder without a bundle.tgbundle.json (a TENSORGRAD_DUMP "
                         "folder of a standalone forward holds graph.json instead)");
      return loadSubject(inFolder);
    }
    // Readable first, so the message says so rather than what parsing made of it.
    if (!std::ifstream(o.source))
      throw InputError(o.source + ": cannot read the bundle (no such file, or no permission)");
    try {
      s.bundle = tg::loadBundle(o.source);
    } catch (const tg::BundleError& e) {
      throw InputError(e.what());
    }
    s.ir = tg::importGraph(*s.bundle, o.pool, emit);
    s.title = std::filesystem::path(o.source).filename().string();
    if (s.bundle->tensorgradVersion)
      s.title += " (tensorgrad " + *s.bundle->tensorgradVersion + ")";
  } else {
    tg_models::Sizes sizes;
    const tg_models::SampleEntry* entry = nullptr;
    try {
      entry = &tg_models::findSample(o.source);
      for (const auto& [name, value] : o.sizes) sizes[name] = value;
      const tg_models::Sample sample = entry->make(sizes, 1);
      s.ir = sample.trace(emit, o.pool);
      s.title = sample.name();
      std::string sz;
      for (const auto& [name, value] : sample.sizes())
        sz += (sz.empty() ? "" : " ") + name + "=" + std::to_string(value);
      if (!sz.empty()) s.title += " (" + sz + ")";
    } catch (const std::invalid_argument& e) {
      throw InputError(
          std::string(e.what()) +
          (entry ? "" : "; or give a graph bundle (.tgbundle.json) exported from the browser"));
    } catch (const tg::ShapeError& e) {
      throw InputError(o.source + " does not trace at these sizes: " + e.what());
    }
  }
  finish(s, o);
  return s;
}

}  // namespace tg_inspect
