// The shim against hand-written Vulkan, side by side in one process on the same device:
// per-dispatch cost (1000 small dispatches in one pass, dependent and independent), CPU encode
// cost alone, the submit→wait round trip, and buffer-to-buffer copy bandwidth.
// WEBGPU_ADAPTER=name picks the device for both.
#include <benchmark/benchmark.h>
#include <webgpu/webgpu_cpp.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "increment.spv.h"
#include "raw_vulkan.h"

namespace {

constexpr int kDispatches = 1000;
constexpr uint64_t kSmall = 64 * 4;
constexpr uint64_t kCopyBytes = 64ull << 20;

std::string AdapterName() {
  const char* env = std::getenv("WEBGPU_ADAPTER");
  return env ? env : "";
}

struct ShimContext {
  wgpu::Instance instance = wgpu::CreateInstance();
  wgpu::Device device;
  wgpu::Queue queue;
  wgpu::ComputePipeline pipeline;
  std::vector<wgpu::Buffer> small;
  std::vector<wgpu::BindGroup> groups;
  wgpu::Buffer copySrc, copyDst;

  ShimContext() {
    wgpu::Adapter adapter;
    instance.WaitAny(instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                             [&](wgpu::RequestAdapterStatus, wgpu::Adapter a, std::string_view) { adapter = a; }),
                     UINT64_MAX);
    if (!adapter) throw std::runtime_error("no adapter");
    wgpu::Limits limits;
    adapter.GetLimits(&limits);
    wgpu::DeviceDescriptor desc;
    desc.requiredLimits = &limits;
    desc.SetUncapturedErrorCallback([](const wgpu::Device&, wgpu::ErrorType, std::string_view m) {
      throw std::runtime_error(std::string(m));
    });
    instance.WaitAny(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestDeviceStatus, wgpu::Device d, std::string_view) { device = d; }),
                     UINT64_MAX);
    queue = device.GetQueue();
    wgpu::ShaderSourceSPIRV spirv;
    spirv.codeSize = sizeof(kIncrementSpv) / 4;
    spirv.code = kIncrementSpv;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &spirv;
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = device.CreateShaderModule(&md);
    pipeline = device.CreateComputePipeline(&pd);
    for (int i = 0; i < kDispatches; ++i) {
      wgpu::BufferDescriptor bd;
      bd.size = kSmall;
      bd.usage = wgpu::BufferUsage::Storage;
      small.push_back(device.CreateBuffer(&bd));
      wgpu::BindGroupDescriptor gd;
      gd.layout = pipeline.GetBindGroupLayout(0);
      const wgpu::BindGroupEntry gdEntries[] = {{.binding = 0, .buffer = small.back()}};
      gd.entryCount = std::size(gdEntries);
      gd.entries = gdEntries;
      groups.push_back(device.CreateBindGroup(&gd));
    }
    wgpu::BufferDescriptor cd;
    cd.size = kCopyBytes;
    cd.usage = wgpu::BufferUsage::CopySrc;
    copySrc = device.CreateBuffer(&cd);
    cd.usage = wgpu::BufferUsage::CopyDst;
    copyDst = device.CreateBuffer(&cd);
  }
  void SubmitAndWait(const wgpu::CommandEncoder& encoder) {
    auto commands = encoder.Finish();
    queue.Submit(1, &commands);
    instance.WaitAny(queue.OnSubmittedWorkDone(wgpu::CallbackMode::WaitAnyOnly,
                                               [](wgpu::QueueWorkDoneStatus, std::string_view) {}),
                     UINT64_MAX);
  }
  // Records the 1000 dispatches: all on buffer 0 (each depends on the last) or each on its own.
  wgpu::CommandEncoder Encode(bool dependent) {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(pipeline);
    for (int i = 0; i < kDispatches; ++i) {
      pass.SetBindGroup(0, groups[dependent ? 0 : i]);
      pass.DispatchWorkgroups(1);
    }
    pass.End();
    return encoder;
  }
};

struct RawContext {
  RawVulkan vk{AdapterName()};
  std::vector<RawVulkan::Buffer> small;
  std::vector<VkDescriptorSet> sets;
  RawVulkan::Buffer copySrc, copyDst;

  RawContext() {
    vk.CreatePipeline(std::span(kIncrementSpv, sizeof(kIncrementSpv) / 4));
    for (int i = 0; i < kDispatches; ++i) {
      small.push_back(vk.CreateBuffer(kSmall, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
      sets.push_back(vk.CreateSet(small.back(), kSmall));
    }
    copySrc = vk.CreateBuffer(kCopyBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    copyDst = vk.CreateBuffer(kCopyBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  }
  ~RawContext() {
    for (auto& b : small) vk.DestroyBuffer(b);
    vk.DestroyBuffer(copySrc);
    vk.DestroyBuffer(copyDst);
  }
};

ShimContext& Shim() {
  static ShimContext ctx;
  return ctx;
}
RawContext& Raw() {
  static RawContext ctx;
  return ctx;
}

void BM_Dispatch1000_Shim(benchmark::State& state) {
  auto& s = Shim();
  const bool dependent = state.range(0) != 0;
  for (auto _ : state) s.SubmitAndWait(s.Encode(dependent));
  state.SetItemsProcessed(state.iterations() * kDispatches);
}
void BM_Dispatch1000_Raw(benchmark::State& state) {
  auto& r = Raw();
  const bool dependent = state.range(0) != 0;
  for (auto _ : state) {
    VkCommandBuffer cmd = r.vk.Begin();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.pipeline);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    for (int i = 0; i < kDispatches; ++i) {
      if (dependent && i > 0)
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
      if (!dependent || i == 0)  // best case: the dependent chain binds its one set once
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.layout, 0, 1, &r.sets[dependent ? 0 : i], 0,
                                nullptr);
      vkCmdDispatch(cmd, 1, 1, 1);
    }
    r.vk.SubmitAndWait(cmd);
  }
  state.SetItemsProcessed(state.iterations() * kDispatches);
}

// CPU cost of recording alone (no submit): what the shim adds per dispatch on the host.
void BM_Encode1000_Shim(benchmark::State& state) {
  auto& s = Shim();
  for (auto _ : state) {
    auto commands = s.Encode(state.range(0) != 0).Finish();
    benchmark::DoNotOptimize(commands);
  }
  state.SetItemsProcessed(state.iterations() * kDispatches);
}
void BM_Encode1000_Raw(benchmark::State& state) {
  auto& r = Raw();
  const bool dependent = state.range(0) != 0;
  for (auto _ : state) {
    VkCommandBuffer cmd = r.vk.Begin();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.pipeline);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    for (int i = 0; i < kDispatches; ++i) {
      if (dependent && i > 0)
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
      if (!dependent || i == 0)  // best case: the dependent chain binds its one set once
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.layout, 0, 1, &r.sets[dependent ? 0 : i], 0,
                                nullptr);
      vkCmdDispatch(cmd, 1, 1, 1);
    }
    vkEndCommandBuffer(cmd);
  }
  state.SetItemsProcessed(state.iterations() * kDispatches);
}

void BM_SubmitWait_Shim(benchmark::State& state) {
  auto& s = Shim();
  for (auto _ : state) {
    auto encoder = s.device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(s.pipeline);
    pass.SetBindGroup(0, s.groups[0]);
    pass.DispatchWorkgroups(1);
    pass.End();
    s.SubmitAndWait(encoder);
  }
}
void BM_SubmitWait_Raw(benchmark::State& state) {
  auto& r = Raw();
  for (auto _ : state) {
    VkCommandBuffer cmd = r.vk.Begin();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.vk.layout, 0, 1, &r.sets[0], 0, nullptr);
    vkCmdDispatch(cmd, 1, 1, 1);
    r.vk.SubmitAndWait(cmd);
  }
}

void BM_Copy64MiB_Shim(benchmark::State& state) {
  auto& s = Shim();
  for (auto _ : state) {
    auto encoder = s.device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(s.copySrc, 0, s.copyDst, 0, kCopyBytes);
    s.SubmitAndWait(encoder);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kCopyBytes));
}
void BM_Copy64MiB_Raw(benchmark::State& state) {
  auto& r = Raw();
  for (auto _ : state) {
    VkCommandBuffer cmd = r.vk.Begin();
    VkBufferCopy region{0, 0, kCopyBytes};
    vkCmdCopyBuffer(cmd, r.copySrc.buffer, r.copyDst.buffer, 1, &region);
    r.vk.SubmitAndWait(cmd);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kCopyBytes));
}

// Arg 1: dependent dispatches (a barrier between each); arg 0: independent ones (no barriers).
BENCHMARK(BM_Dispatch1000_Shim)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Dispatch1000_Raw)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Encode1000_Shim)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Encode1000_Raw)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SubmitWait_Shim)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SubmitWait_Raw)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Copy64MiB_Shim)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Copy64MiB_Raw)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
