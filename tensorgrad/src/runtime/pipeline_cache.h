// Compute pipelines for tensorgrad kernels: one per distinct WGSL text on a device, and a
// persistent WGSL→SPIR-V cache on disk so a second compile of a model skips translation.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <filesystem>
#include <string>
#include <unordered_map>

#include "tensorgrad/codegen.h"

namespace tg::detail {

class PipelineCache {
 public:
  // `dir`: the cache directory; empty picks the default (see RuntimeOptions::cacheDir), "none"
  // keeps the cache in memory only.
  PipelineCache(wgpu::Instance instance, wgpu::Device device, const std::filesystem::path& dir);
  // Waits for the builds still in flight: their callbacks write into this cache.
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // The pipeline for `kernel`. Throws CompileError naming the kernel, with the WGSL line:col
  // diagnostics, when the WGSL does not translate or the device rejects it.
  wgpu::ComputePipeline get(const KernelSpec& kernel);
  // Starts the pipelines of the kernels this device has none for yet: SPIR-V from the disk cache
  // or translated on all cores (and stored), then the driver's builds on the device's
  // background threads, so that the get() calls that follow only wait. get() prepares a kernel
  // it meets unprepared itself.
  void prepare(const std::vector<KernelSpec>& kernels);

 private:
  struct Prepared {
    std::string diagnostics;  // set when the WGSL does not translate
    std::string error;        // set when the device rejects the SPIR-V or the pipeline
    wgpu::Future build;       // the pipeline build in flight, unless one of the above is set
    wgpu::ComputePipeline pipeline;
  };
  std::filesystem::path entryPath(const std::string& wgsl) const;
  void startBuild(const KernelSpec& kernel, const std::vector<uint32_t>& spirv, Prepared& entry);

  wgpu::Instance instance_;
  wgpu::Device device_;
  std::filesystem::path dir_;
  std::unordered_map<std::string, wgpu::ComputePipeline> pipelines_;  // by WGSL text
  std::unordered_map<std::string, Prepared> prepared_;  // by WGSL text, until get() takes it
};

// The directory RuntimeOptions::cacheDir resolves to (empty: disabled).
std::filesystem::path resolveCacheDir(const std::filesystem::path& configured);

}  // namespace tg::detail
