// A small harness in the shape of Dawn's end2end fixture, written against webgpu_cpp.h alone, for
// the programs that re-run Dawn's compute end2end checks (compute_*.cpp, dynamic_buffer_offset.cpp,
// buffer_zero_init.cpp). Each program sets up the device, runs its cases and ends with Finish():
// "<family>: all N checks pass" and exit 0, or a "FAILED" line per mismatch and exit 1. Handles
// live in namespace-scope globals, as Dawn's samples keep them.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <webgpu/webgpu_cpp_print.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace e2e {

inline wgpu::Instance instance;
inline wgpu::Adapter adapter;
inline wgpu::Device device;
inline wgpu::Queue queue;
inline uint32_t checks = 0;
inline uint32_t failures = 0;

inline void Fail(const std::string& what) {
  ++failures;
  std::cout << "FAILED: " << what << "\n";
}

// Instance with timed WaitAny, the default adapter, a device asking for `required` (or WebGPU's
// defaults); any uncaptured error fails the program.
inline void Init(const wgpu::Limits* required = nullptr) {
  static const auto kTimedWaitAny = wgpu::InstanceFeatureName::TimedWaitAny;
  wgpu::InstanceDescriptor instanceDesc{.requiredFeatureCount = 1,
                                        .requiredFeatures = &kTimedWaitAny};
  instance = wgpu::CreateInstance(&instanceDesc);
  instance.WaitAny(
      instance.RequestAdapter(
          nullptr, wgpu::CallbackMode::WaitAnyOnly,
          [](wgpu::RequestAdapterStatus status, wgpu::Adapter a, wgpu::StringView message) {
            if (status != wgpu::RequestAdapterStatus::Success) {
              std::cout << "FAILED: RequestAdapter: " << message << "\n";
              std::exit(1);
            }
            adapter = std::move(a);
          }),
      UINT64_MAX);
  wgpu::DeviceDescriptor desc{};
  desc.requiredLimits = required;
  desc.SetUncapturedErrorCallback(
      [](const wgpu::Device&, wgpu::ErrorType type, wgpu::StringView message) {
        std::ostringstream text;
        text << "uncaptured " << type << " error: " << message;
        Fail(text.str());
      });
  instance.WaitAny(
      adapter.RequestDevice(
          &desc, wgpu::CallbackMode::WaitAnyOnly,
          [](wgpu::RequestDeviceStatus status, wgpu::Device d, wgpu::StringView message) {
            if (status != wgpu::RequestDeviceStatus::Success) {
              std::cout << "FAILED: RequestDevice: " << message << "\n";
              std::exit(1);
            }
            device = std::move(d);
          }),
      UINT64_MAX);
  queue = device.GetQueue();
}

inline wgpu::Limits DeviceLimits() {
  wgpu::Limits limits;
  device.GetLimits(&limits);
  return limits;
}

inline wgpu::Buffer CreateBuffer(uint64_t size, wgpu::BufferUsage usage) {
  wgpu::BufferDescriptor desc{.usage = usage, .size = size};
  return device.CreateBuffer(&desc);
}

// A buffer holding `data` (CopyDst is added for the upload).
inline wgpu::Buffer BufferFrom(const std::vector<uint32_t>& data, wgpu::BufferUsage usage) {
  wgpu::Buffer buffer = CreateBuffer(data.size() * 4, usage | wgpu::BufferUsage::CopyDst);
  queue.WriteBuffer(buffer, 0, data.data(), data.size() * 4);
  return buffer;
}

inline wgpu::ShaderModule Shader(const char* wgsl) {
  wgpu::ShaderSourceWGSL source{{.code = wgsl}};
  wgpu::ShaderModuleDescriptor desc{.nextInChain = &source};
  return device.CreateShaderModule(&desc);
}

// A compute pipeline of the module's only entry point, with `layout` or layout "auto".
inline wgpu::ComputePipeline Pipeline(const char* wgsl, wgpu::PipelineLayout layout = nullptr) {
  wgpu::ComputePipelineDescriptor desc{.layout = layout, .compute = {.module = Shader(wgsl)}};
  return device.CreateComputePipeline(&desc);
}

struct LayoutEntry {
  uint32_t binding;
  wgpu::BufferBindingType type;
  bool dynamic = false;
};
inline wgpu::BindGroupLayout MakeLayout(std::initializer_list<LayoutEntry> entries) {
  std::vector<wgpu::BindGroupLayoutEntry> e;
  for (const LayoutEntry& x : entries)
    e.push_back({.binding = x.binding,
                 .visibility = wgpu::ShaderStage::Compute,
                 .buffer = {.type = x.type, .hasDynamicOffset = x.dynamic}});
  wgpu::BindGroupLayoutDescriptor desc{.entryCount = e.size(), .entries = e.data()};
  return device.CreateBindGroupLayout(&desc);
}
inline wgpu::PipelineLayout MakePipelineLayout(
    std::initializer_list<wgpu::BindGroupLayout> groups) {
  std::vector<wgpu::BindGroupLayout> g(groups);
  wgpu::PipelineLayoutDescriptor desc{.bindGroupLayoutCount = g.size(),
                                      .bindGroupLayouts = g.data()};
  return device.CreatePipelineLayout(&desc);
}

struct Binding {
  uint32_t binding;
  wgpu::Buffer buffer;
  uint64_t offset = 0;
  uint64_t size = wgpu::kWholeSize;
};
inline wgpu::BindGroup MakeBindGroup(const wgpu::BindGroupLayout& layout,
                                     std::initializer_list<Binding> bindings) {
  std::vector<wgpu::BindGroupEntry> e;
  for (const Binding& b : bindings)
    e.push_back({.binding = b.binding, .buffer = b.buffer, .offset = b.offset, .size = b.size});
  wgpu::BindGroupDescriptor desc{.layout = layout, .entryCount = e.size(), .entries = e.data()};
  return device.CreateBindGroup(&desc);
}

inline void Submit(const wgpu::CommandEncoder& encoder) {
  wgpu::CommandBuffer commands = encoder.Finish();
  queue.Submit(1, &commands);
}

// `count` words of `buffer` from byte `offset`, through a MapRead copy.
inline std::vector<uint32_t> ReadU32(const wgpu::Buffer& buffer, uint64_t offset, size_t count) {
  const uint64_t size = count * 4;
  wgpu::Buffer staging =
      CreateBuffer(size, wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(buffer, offset, staging, 0, size);
  Submit(encoder);
  bool mapped = false;
  instance.WaitAny(
      staging.MapAsync(wgpu::MapMode::Read, 0, size, wgpu::CallbackMode::WaitAnyOnly,
                       [&mapped](wgpu::MapAsyncStatus status, wgpu::StringView message) {
                         mapped = status == wgpu::MapAsyncStatus::Success;
                         if (!mapped) std::cout << "MapAsync: " << message << "\n";
                       }),
      UINT64_MAX);
  std::vector<uint32_t> out(count, 0);
  if (!mapped) {
    Fail("readback could not be mapped");
    return out;
  }
  std::memcpy(out.data(), staging.GetConstMappedRange(0, size), size);
  staging.Unmap();
  return out;
}

inline std::string Words(const std::vector<uint32_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return "[" + s + (v.size() > 8 ? ", ...]" : "]");
}

// One check: `buffer` from `offset` holds `expected`.
inline void ExpectBufferEq(const std::vector<uint32_t>& expected, const wgpu::Buffer& buffer,
                           uint64_t offset, const std::string& what) {
  ++checks;
  const std::vector<uint32_t> got = ReadU32(buffer, offset, expected.size());
  if (got != expected) Fail(what + ": got " + Words(got) + ", expected " + Words(expected));
}

inline void Expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) Fail(what);
}

// Runs `encode` in a validation error scope: true when it raised an error.
template <typename F>
bool RaisesValidationError(F encode) {
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  encode();
  bool raised = false;
  instance.WaitAny(device.PopErrorScope(
                       wgpu::CallbackMode::WaitAnyOnly,
                       [&raised](wgpu::PopErrorScopeStatus, wgpu::ErrorType type,
                                 wgpu::StringView) { raised = type != wgpu::ErrorType::NoError; }),
                   UINT64_MAX);
  return raised;
}

inline int Finish(const char* family) {
  if (failures != 0) {
    std::cout << family << ": FAILED " << failures << " of " << checks << " checks\n";
    return 1;
  }
  std::cout << family << ": all " << checks << " checks pass\n";
  return 0;
}

}  // namespace e2e
