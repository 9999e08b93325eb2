// The default adapter's device with the adapter's full limits, for tests that run kernels.
// Uncaptured errors are appended to `errors`, which must outlive the device.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace test_support {

struct DefaultDevice {
  wgpu::Instance instance;
  wgpu::Device device;  // null when there is no adapter; `errors` says why
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

}  // namespace test_support
