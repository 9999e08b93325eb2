// A compute program written the way code for Dawn is often written: Dawn's own include path
// (<dawn/webgpu_cpp.h>), assert and <cmath> functions used without including them (Dawn's header
// brings them in), and WebGPU's default limits written out in requiredLimits, render and texture
// limits included. It squares-roots 4,096 values on the GPU and checks them against the CPU. It
// must build against the shim unchanged.
#include <dawn/webgpu_cpp.h>
#include <dawn/webgpu_cpp_print.h>

#include <iostream>
#include <vector>

const char kSqrtWGSL[] = R"(
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> y : array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < arrayLength(&y)) {
    y[id.x] = sqrt(x[id.x]);
  }
}
)";

// WebGPU's default limits, as a program copies them from the specification.
wgpu::Limits WebGpuDefaults() {
  wgpu::Limits l;
  l.maxTextureDimension1D = 8192;
  l.maxTextureDimension2D = 8192;
  l.maxTextureDimension3D = 2048;
  l.maxTextureArrayLayers = 256;
  l.maxBindGroups = 4;
  l.maxBindGroupsPlusVertexBuffers = 24;
  l.maxBindingsPerBindGroup = 1000;
  l.maxSampledTexturesPerShaderStage = 16;
  l.maxSamplersPerShaderStage = 16;
  l.maxStorageBuffersPerShaderStage = 8;
  l.maxStorageTexturesPerShaderStage = 4;
  l.maxUniformBuffersPerShaderStage = 12;
  l.maxUniformBufferBindingSize = 65536;
  l.maxStorageBufferBindingSize = 134217728;
  l.minUniformBufferOffsetAlignment = 256;
  l.minStorageBufferOffsetAlignment = 256;
  l.maxVertexBuffers = 8;
  l.maxBufferSize = 268435456;
  l.maxVertexAttributes = 16;
  l.maxVertexBufferArrayStride = 2048;
  l.maxInterStageShaderVariables = 16;
  l.maxColorAttachments = 8;
  l.maxColorAttachmentBytesPerSample = 32;
  l.maxComputeWorkgroupStorageSize = 16384;
  l.maxComputeInvocationsPerWorkgroup = 256;
  l.maxComputeWorkgroupSizeX = 256;
  l.maxComputeWorkgroupSizeY = 256;
  l.maxComputeWorkgroupSizeZ = 64;
  l.maxComputeWorkgroupsPerDimension = 65535;
  return l;
}

int main() {
  wgpu::Instance instance = wgpu::CreateInstance();
  assert(instance);
  wgpu::Adapter adapter;
  instance.WaitAny(instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestAdapterStatus status, wgpu::Adapter a,
                                               wgpu::StringView message) {
                                             if (status != wgpu::RequestAdapterStatus::Success)
                                               std::cout << "RequestAdapter: " << message << "\n";
                                             adapter = std::move(a);
                                           }),
                   UINT64_MAX);
  if (!adapter) return 1;

  const wgpu::Limits limits = WebGpuDefaults();
  wgpu::DeviceDescriptor desc{};
  desc.requiredLimits = &limits;
  wgpu::Device device;
  instance.WaitAny(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                                         [&](wgpu::RequestDeviceStatus status, wgpu::Device d,
                                             wgpu::StringView message) {
                                           if (status != wgpu::RequestDeviceStatus::Success)
                                             std::cout << "RequestDevice: " << message << "\n";
                                           device = std::move(d);
                                         }),
                   UINT64_MAX);
  if (!device) return 1;

  constexpr uint32_t kCount = 4096;
  constexpr uint64_t kSize = kCount * sizeof(float);
  std::vector<float> xs(kCount);
  for (uint32_t i = 0; i < kCount; ++i) xs[i] = static_cast<float>(i) * 0.25f;

  wgpu::BufferDescriptor xDesc{.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst, .size = kSize};
  wgpu::Buffer x = device.CreateBuffer(&xDesc);
  wgpu::BufferDescriptor yDesc{.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, .size = kSize};
  wgpu::Buffer y = device.CreateBuffer(&yDesc);
  wgpu::BufferDescriptor readDesc{.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst, .size = kSize};
  wgpu::Buffer readback = device.CreateBuffer(&readDesc);
  device.GetQueue().WriteBuffer(x, 0, xs.data(), kSize);

  wgpu::ShaderSourceWGSL wgsl{{.code = kSqrtWGSL}};
  wgpu::ShaderModuleDescriptor moduleDesc{.nextInChain = &wgsl};
  wgpu::ComputePipelineDescriptor pipelineDesc{.compute = {.module = device.CreateShaderModule(&moduleDesc)}};
  wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pipelineDesc);
  assert(pipeline);
  wgpu::BindGroupEntry entries[] = {{.binding = 0, .buffer = x}, {.binding = 1, .buffer = y}};
  wgpu::BindGroupDescriptor groupDesc{.layout = pipeline.GetBindGroupLayout(0), .entryCount = 2, .entries = entries};
  wgpu::BindGroup group = device.CreateBindGroup(&groupDesc);

  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  pass.DispatchWorkgroups(kCount / 64);
  pass.End();
  encoder.CopyBufferToBuffer(y, 0, readback, 0, kSize);
  wgpu::CommandBuffer commands = encoder.Finish();
  device.GetQueue().Submit(1, &commands);

  wgpu::MapAsyncStatus mapStatus = wgpu::MapAsyncStatus::Error;
  instance.WaitAny(readback.MapAsync(wgpu::MapMode::Read, 0, kSize, wgpu::CallbackMode::WaitAnyOnly,
                                     [&](wgpu::MapAsyncStatus status, wgpu::StringView) { mapStatus = status; }),
                   UINT64_MAX);
  if (mapStatus != wgpu::MapAsyncStatus::Success) {
    std::cout << "MapAsync: " << mapStatus << "\n";
    return 1;
  }
  const auto* result = static_cast<const float*>(readback.GetConstMappedRange(0, kSize));
  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < kCount; ++i)
    if (std::fabs(result[i] - std::sqrt(xs[i])) > 1e-6f * std::sqrt(xs[i]) + 1e-7f) ++mismatches;
  readback.Unmap();
  if (mismatches != 0) {
    std::cout << "include paths: " << mismatches << " of " << kCount << " square roots differ\n";
    return 1;
  }
  std::cout << "include paths: all " << kCount << " square roots match the CPU\n";
  return 0;
}
