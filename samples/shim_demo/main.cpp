// shim_demo: picks the default WebGPU adapter (a GPU, else lavapipe on the CPU), runs
// y = a*x + y on the GPU through the shim, checks it against the CPU and prints what it did.
#include <webgpu/webgpu_cpp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "saxpy.spv.h"

namespace {

int Fail(const std::string& why) {
  std::fprintf(stderr, "shim_demo: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = 1u << 22;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      n = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::printf("usage: shim_demo [--n ELEMENTS]   (WEBGPU_ADAPTER=name picks an adapter)\n");
      return argv[i] == std::string("--help") ? 0 : 2;
    }
  }
  wgpu::Instance instance = wgpu::CreateInstance();
  wgpu::Adapter adapter;
  std::string error;
  instance.WaitAny(instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestAdapterStatus s, wgpu::Adapter a, std::string_view m) {
                                             if (s == wgpu::RequestAdapterStatus::Success) adapter = a;
                                             else error = m;
                                           }),
                   UINT64_MAX);
  if (!adapter) return Fail("no WebGPU adapter: " + error);
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  std::printf("adapter: %s (%s)\n", std::string(info.device).c_str(),
              std::string(info.description).c_str());

  wgpu::DeviceDescriptor desc;
  desc.label = "demo";
  desc.SetUncapturedErrorCallback([](const wgpu::Device&, wgpu::ErrorType type, std::string_view m) {
    std::fprintf(stderr, "WebGPU %s error: %.*s\n", std::string(wgpu::ToString(type)).c_str(),
                 static_cast<int>(m.size()), m.data());
  });
  wgpu::Device device;
  instance.WaitAny(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                                         [&](wgpu::RequestDeviceStatus s, wgpu::Device d, std::string_view m) {
                                           if (s == wgpu::RequestDeviceStatus::Success) device = d;
                                           else error = m;
                                         }),
                   UINT64_MAX);
  if (!device) return Fail("device request failed: " + error);
  wgpu::Queue queue = device.GetQueue();

  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = std::sin(0.001f * static_cast<float>(i));
    y[i] = static_cast<float>(i % 97);
  }
  const float a = 2.5f;
  const uint64_t bytes = uint64_t{n} * 4;
  auto makeBuffer = [&](const char* label, uint64_t size, wgpu::BufferUsage usage) {
    wgpu::BufferDescriptor d;
    d.label = label;
    d.size = size;
    d.usage = usage;
    return device.CreateBuffer(&d);
  };
  auto params = makeBuffer("params", 16, wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst);
  auto xs = makeBuffer("x", bytes, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst);
  auto ys = makeBuffer("y", bytes, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst | wgpu::BufferUsage::CopySrc);
  auto readback = makeBuffer("readback", bytes, wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst);
  uint32_t p[4];
  std::memcpy(&p[0], &a, 4);
  p[1] = n;
  queue.WriteBuffer(params, 0, p, 16);
  queue.WriteBuffer(xs, 0, x.data(), bytes);
  queue.WriteBuffer(ys, 0, y.data(), bytes);

  wgpu::ShaderSourceSPIRV spirv;
  spirv.codeSize = sizeof(kSaxpySpv) / 4;
  spirv.code = kSaxpySpv;
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &spirv;
  md.label = "saxpy";
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "saxpy";
  pd.compute.module = device.CreateShaderModule(&md);
  auto pipeline = device.CreateComputePipeline(&pd);
  wgpu::BindGroupDescriptor gd;
  gd.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry gdEntries[] = {
      {.binding = 0, .buffer = params}, {.binding = 1, .buffer = xs}, {.binding = 2, .buffer = ys}};
  gd.entryCount = std::size(gdEntries);
  gd.entries = gdEntries;
  auto group = device.CreateBindGroup(&gd);

  const auto start = std::chrono::steady_clock::now();
  const uint32_t groups = (n + 255) / 256;
  const uint32_t gx = groups > 65535 ? 65535 : groups;
  const uint32_t gy = (groups + gx - 1) / gx;
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  pass.DispatchWorkgroups(gx, gy);
  pass.End();
  encoder.CopyBufferToBuffer(ys, 0, readback, 0, bytes);
  auto commands = encoder.Finish();
  queue.Submit(1, &commands);
  bool mapped = false;
  instance.WaitAny(readback.MapAsync(wgpu::MapMode::Read, 0, bytes, wgpu::CallbackMode::WaitAnyOnly,
                                     [&](wgpu::MapAsyncStatus s, std::string_view m) {
                                       mapped = s == wgpu::MapAsyncStatus::Success;
                                       if (!mapped) error = m;
                                     }),
                   UINT64_MAX);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!mapped) return Fail("readback failed: " + error);
  const float* out = static_cast<const float*>(readback.GetConstMappedRange(0, bytes));
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (out[i] != std::fma(a, x[i], y[i]) && out[i] != a * x[i] + y[i]) ++wrong;
  readback.Unmap();
  std::printf("saxpy over %u floats: dispatch + copy + readback %.2f ms, %u mismatches vs CPU\n", n, ms, wrong);
  return wrong == 0 ? 0 : 1;
}
