// The default adapter's device with the adapter's full limits, for tests that run kernels, and
// the readback they share. Uncaptured errors are appended to `errors`, which must outlive the
// device.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace test_support {

struct DefaultDevice {
  wgpu::Instance instance;
  wgpu::Device device;  // null when there is no adapter; `errors` says why
  bool cpu = false;     // a software adapter (lavapipe, SwiftShader): EmitOptions::cpuDevice
};

inline DefaultDevice openDefaultDevice(std::vector<std::string>& errors) {
  DefaultDevice d{wgpu::CreateInstance(), {}};
  wgpu::Adapter adapter;
  std::string why;
  d.instance.WaitAny(d.instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                               [&](wgpu::RequestAdapterStatus, wgpu::Adapter a, std::string_view m) {
                                                 adapter = a;
                                                 why = m;
                                               }),
                     UINT64_MAX);
  if (!adapter) {
    errors.push_back("no WebGPU adapter: " + why);
    return d;
  }
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  d.cpu = info.adapterType == wgpu::AdapterType::CPU;
  wgpu::Limits limits;
  adapter.GetLimits(&limits);
  wgpu::DeviceDescriptor desc;
  desc.requiredLimits = &limits;
  desc.SetUncapturedErrorCallback([&errors](const wgpu::Device&, wgpu::ErrorType, std::string_view m) { errors.emplace_back(m); });
  d.instance.WaitAny(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestDeviceStatus, wgpu::Device dev, std::string_view) { d.device = dev; }),
                     UINT64_MAX);
  return d;
}

// Blocks until the queue has finished everything submitted so far.
inline void waitIdle(const DefaultDevice& d) {
  d.instance.WaitAny(d.device.GetQueue().OnSubmittedWorkDone(
                         wgpu::CallbackMode::WaitAnyOnly, [](wgpu::QueueWorkDoneStatus, std::string_view) {}),
                     UINT64_MAX);
}

// Appends a copy of every buffer into one staging buffer to `encoder`, submits it, and returns
// each buffer's contents as 32-bit words. Empty when the map fails.
inline std::vector<std::vector<uint32_t>> submitAndReadBack(const DefaultDevice& d,
                                                            const wgpu::CommandEncoder& encoder,
                                                            const std::vector<wgpu::Buffer>& buffers) {
  uint64_t total = 0;
  for (const auto& b : buffers) total += b.GetSize();
  wgpu::BufferDescriptor sd;
  sd.size = std::max<uint64_t>(total, 4);
  sd.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
  wgpu::Buffer staging = d.device.CreateBuffer(&sd);
  uint64_t offset = 0;
  for (const auto& b : buffers) {
    encoder.CopyBufferToBuffer(b, 0, staging, offset, b.GetSize());
    offset += b.GetSize();
  }
  wgpu::CommandBuffer commands = encoder.Finish();
  d.device.GetQueue().Submit(1, &commands);
  bool mapped = false;
  d.instance.WaitAny(staging.MapAsync(wgpu::MapMode::Read, 0, sd.size, wgpu::CallbackMode::WaitAnyOnly,
                                      [&](wgpu::MapAsyncStatus s, std::string_view) {
                                        mapped = s == wgpu::MapAsyncStatus::Success;
                                      }),
                     UINT64_MAX);
  std::vector<std::vector<uint32_t>> out;
  if (!mapped) return out;
  const auto* words = static_cast<const uint32_t*>(staging.GetConstMappedRange(0, sd.size));
  offset = 0;
  for (const auto& b : buffers) {
    out.emplace_back(words + offset / 4, words + (offset + b.GetSize()) / 4);
    offset += b.GetSize();
  }
  staging.Unmap();
  return out;
}

}  // namespace test_support
