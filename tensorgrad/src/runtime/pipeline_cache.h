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

  // The pipeline for `kernel`. Throws CompileError naming the kernel, with the WGSL line:col
  // diagnostics, when the WGSL does not translate or the device rejects it.
  wgpu::ComputePipeline get(const KernelSpec& kernel);
  // Translates, on all cores, the kernels' WGSL that neither this device nor the disk cache has
  // yet, so that the get() calls that follow only create pipelines.
  void prepare(const std::vector<KernelSpec>& kernels);

  struct Stats {
    size_t reused = 0;      // WGSL seen before on this device
    size_t fromDisk = 0;    // SPIR-V read from the disk cache
    size_t translated = 0;  // WGSL translated (and stored)
  };
  const Stats& stats() const { return stats_; }
  const std::filesystem::path& directory() const { return dir_; }  // empty when off

 private:
  std::vector<uint32_t> spirvFor(const KernelSpec& kernel);
  std::filesystem::path entryPath(const std::string& wgsl) const;

  wgpu::Instance instance_;
  wgpu::Device device_;
  std::filesystem::path dir_;
  std::unordered_map<std::string, wgpu::ComputePipeline> pipelines_;  // by WGSL text
  std::unordered_map<std::string, std::vector<uint32_t>> prepared_;   // SPIR-V by WGSL text
  Stats stats_;
};

// The directory RuntimeOptions::cacheDir resolves to (empty: disabled).
std::filesystem::path resolveCacheDir(const std::filesystem::path& configured);

}  // namespace tg::detail
