// saxpy (y = a * x + y) written as a program for Dawn's webgpu_cpp.h is written: instance with
// timed WaitAny, adapter and device through callback-mode futures, a WGSL compute pipeline with
// layout "auto", and a readback through MapAsync + WaitAny. It must build against the shim
// unchanged; the test runs it and checks its verdict against the CPU.
#include <webgpu/webgpu_cpp.h>
#include <webgpu/webgpu_cpp_print.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

wgpu::Instance instance;
wgpu::Adapter adapter;
wgpu::Device device;

const char kSaxpyWGSL[] = R"(
struct Params {
  a : f32,
  n : u32,
}

@group(0) @binding(0) var<uniform> params : Params;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<storage, read_write> y : array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < params.n) {
    y[id.x] = params.a * x[id.x] + y[id.x];
  }
}
)";

void Init() {
  static const auto kTimedWaitAny = wgpu::InstanceFeatureName::TimedWaitAny;
  wgpu::InstanceDescriptor instanceDesc{.requiredFeatureCount = 1,
                                        .requiredFeatures = &kTimedWaitAny};
  instance = wgpu::CreateInstance(&instanceDesc);

  wgpu::Future f1 = instance.RequestAdapter(
      nullptr, wgpu::CallbackMode::WaitAnyOnly,
      [](wgpu::RequestAdapterStatus status, wgpu::Adapter a, wgpu::StringView message) {
        if (status != wgpu::RequestAdapterStatus::Success) {
          std::cout << "RequestAdapter: " << message << "\n";
          exit(1);
        }
        adapter = std::move(a);
      });
  instance.WaitAny(f1, UINT64_MAX);

  wgpu::DeviceDescriptor desc{};
  desc.SetUncapturedErrorCallback(
      [](const wgpu::Device&, wgpu::ErrorType errorType, wgpu::StringView message) {
        std::cout << "Error: " << errorType << " - message: " << message << "\n";
      });

  wgpu::Future f2 = adapter.RequestDevice(
      &desc, wgpu::CallbackMode::WaitAnyOnly,
      [](wgpu::RequestDeviceStatus status, wgpu::Device d, wgpu::StringView message) {
        if (status != wgpu::RequestDeviceStatus::Success) {
          std::cout << "RequestDevice: " << message << "\n";
          exit(1);
        }
        device = std::move(d);
      });
  instance.WaitAny(f2, UINT64_MAX);
}

int main() {
  Init();

  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  std::cout << "Using " << info.device << " (" << info.backendType << ")\n";

  constexpr uint32_t kCount = 10000;
  constexpr float kA = 2.5f;
  constexpr uint64_t kSize = kCount * sizeof(float);
  std::vector<float> xs(kCount), ys(kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    xs[i] = static_cast<float>(i) * 0.5f;
    ys[i] = 1.0f - static_cast<float>(i % 7);
  }

  struct Params {
    float a;
    uint32_t n;
  } params{kA, kCount};

  wgpu::BufferDescriptor paramsDesc{
      .label = "params",
      .usage = wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst,
      .size = sizeof(Params)};
  wgpu::Buffer paramsBuffer = device.CreateBuffer(&paramsDesc);
  wgpu::BufferDescriptor xDesc{.label = "x",
                               .usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst,
                               .size = kSize};
  wgpu::Buffer xBuffer = device.CreateBuffer(&xDesc);
  wgpu::BufferDescriptor yDesc{
      .label = "y",
      .usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst,
      .size = kSize};
  wgpu::Buffer yBuffer = device.CreateBuffer(&yDesc);
  wgpu::BufferDescriptor readbackDesc{
      .label = "readback",
      .usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst,
      .size = kSize};
  wgpu::Buffer readback = device.CreateBuffer(&readbackDesc);

  wgpu::Queue queue = device.GetQueue();
  queue.WriteBuffer(paramsBuffer, 0, &params, sizeof(params));
  queue.WriteBuffer(xBuffer, 0, xs.data(), kSize);
  queue.WriteBuffer(yBuffer, 0, ys.data(), kSize);

  wgpu::ShaderSourceWGSL wgsl{{.code = kSaxpyWGSL}};
  wgpu::ShaderModuleDescriptor shaderModuleDescriptor{.nextInChain = &wgsl, .label = "saxpy"};
  wgpu::ShaderModule shaderModule = device.CreateShaderModule(&shaderModuleDescriptor);

  wgpu::ComputePipelineDescriptor pipelineDesc{
      .label = "saxpy", .compute = {.module = shaderModule, .entryPoint = "main"}};
  wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pipelineDesc);

  wgpu::BindGroupEntry entries[] = {
      {.binding = 0, .buffer = paramsBuffer},
      {.binding = 1, .buffer = xBuffer},
      {.binding = 2, .buffer = yBuffer},
  };
  wgpu::BindGroupDescriptor bindGroupDesc{
      .layout = pipeline.GetBindGroupLayout(0), .entryCount = 3, .entries = entries};
  wgpu::BindGroup bindGroup = device.CreateBindGroup(&bindGroupDesc);

  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, bindGroup);
  pass.DispatchWorkgroups((kCount + 63) / 64);
  pass.End();
  encoder.CopyBufferToBuffer(yBuffer, 0, readback, 0, kSize);
  wgpu::CommandBuffer commands = encoder.Finish();
  queue.Submit(1, &commands);

  bool mapped = false;
  wgpu::Future mapFuture =
      readback.MapAsync(wgpu::MapMode::Read, 0, kSize, wgpu::CallbackMode::WaitAnyOnly,
                        [&mapped](wgpu::MapAsyncStatus status, wgpu::StringView message) {
                          if (status != wgpu::MapAsyncStatus::Success) {
                            std::cout << "MapAsync: " << status << " - " << message << "\n";
                            return;
                          }
                          mapped = true;
                        });
  if (instance.WaitAny(mapFuture, UINT64_MAX) != wgpu::WaitStatus::Success || !mapped) return 1;

  const float* result = static_cast<const float*>(readback.GetConstMappedRange(0, kSize));
  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    const float expected = kA * xs[i] + ys[i];
    if (std::fabs(result[i] - expected) > 1e-5f * std::fabs(expected) + 1e-6f) {
      if (mismatches++ < 5)
        std::cout << "y[" << i << "] = " << result[i] << ", expected " << expected << "\n";
    }
  }
  readback.Unmap();
  if (mismatches != 0) {
    std::cout << "saxpy: " << mismatches << " of " << kCount << " values differ\n";
    return 1;
  }
  std::cout << "saxpy: all " << kCount << " values match the CPU\n";
  return 0;
}
