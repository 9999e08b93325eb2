// Compute pipelines for tensorgrad kernels: one per distinct WGSL text on a device. The WGSL goes
// to the device as upstream hands it to the browser's WebGPU: the shim translates and validates it
// on its worker threads and keeps the SPIR-V in the device's blob cache (the hooks openGpu
// installs), so a second compile of a model skips translation.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "tensorgrad/codegen.h"

namespace tg::detail {

class PipelineCache {
 public:
  PipelineCache(wgpu::Instance instance, wgpu::Device device);
  // Waits for the builds still in flight: their callbacks write into this cache.
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // The pipeline for `kernel`. Throws CompileError naming the kernel, with the WGSL line:col
  // diagnostics, when the WGSL does not translate or the device rejects it.
  wgpu::ComputePipeline get(const KernelSpec& kernel);
  // Starts the pipelines of the kernels this device has none for yet: every shader module first
  // (the shim translates them at once, on all cores), then every pipeline build, so that the
  // get() calls that follow only wait. get() prepares a kernel it meets unprepared itself.
  void prepare(const std::vector<KernelSpec>& kernels);

 private:
  struct Prepared {
    wgpu::ShaderModule module;  // its compilation messages say why, if the pipeline fails
    std::string error;          // set when the device rejects the module or the pipeline
    wgpu::Future build;         // the pipeline build in flight
    wgpu::ComputePipeline pipeline;
  };
  // The module's WGSL diagnostics, rendered as the translator renders them; empty if none.
  std::string diagnostics(const wgpu::ShaderModule& module, const std::string& wgsl) const;

  wgpu::Instance instance_;
  wgpu::Device device_;
  std::unordered_map<std::string, wgpu::ComputePipeline> pipelines_;  // by WGSL text
  std::unordered_map<std::string, Prepared> prepared_;  // by WGSL text, until get() takes it
};

}  // namespace tg::detail
