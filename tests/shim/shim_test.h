// Shared fixture for the shim tests: a device on the default adapter (lavapipe on a CPU machine),
// GLSL compiled to SPIR-V with glslang (the WGSL translator is tested on its own), and helpers to
// upload, read back and capture errors.
#pragma once

#include <gtest/gtest.h>
#include <webgpu/webgpu_cpp.h>
#include <webgpu/webgpu_cpp_print.h>

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shim_test {

std::vector<uint32_t> CompileGlsl(std::string_view source);

struct CapturedError {
  wgpu::ErrorType type = wgpu::ErrorType::NoError;
  std::string message;
};

class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // Requests a device; `limits` may be null (WebGPU defaults).
  wgpu::Device MakeDevice(const wgpu::Limits* limits = nullptr);

  wgpu::Buffer MakeBuffer(uint64_t size, wgpu::BufferUsage usage, std::string label = "");
  template <typename T>
  wgpu::Buffer Upload(const std::vector<T>& data, wgpu::BufferUsage usage, std::string label = "") {
    auto b = MakeBuffer(data.size() * sizeof(T), usage | wgpu::BufferUsage::CopyDst, std::move(label));
    queue.WriteBuffer(b, 0, data.data(), data.size() * sizeof(T));
    return b;
  }
  // Copies [offset, offset+size) into a MapRead buffer, maps it and returns the bytes.
  std::vector<uint8_t> ReadBytes(const wgpu::Buffer& buffer, uint64_t offset, uint64_t size);
  template <typename T>
  std::vector<T> Read(const wgpu::Buffer& buffer, size_t count, uint64_t offset = 0) {
    auto bytes = ReadBytes(buffer, offset, count * sizeof(T));
    std::vector<T> out(count);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  wgpu::ShaderModule Module(std::string_view glsl, std::string label = "");
  wgpu::ComputePipeline Pipeline(std::string_view glsl, std::string label = "");
  wgpu::BindGroup Group(const wgpu::ComputePipeline& pipeline, uint32_t index,
                        std::vector<wgpu::Buffer> buffers, std::string label = "");
  void Submit(const wgpu::CommandEncoder& encoder);
  // One compute pass dispatching one workgroup of `pipeline` with `group` at index 0, submitted.
  // One dispatch of `workgroups` workgroups, in a submission of its own.
  void DispatchOne(const wgpu::ComputePipeline& pipeline, const wgpu::BindGroup& group,
                   uint32_t workgroups = 1);
  // Waits for a future, failing the test on timeout.
  void Wait(wgpu::Future future);
  void WaitIdle();
  // Runs `fn` inside an error scope of `filter` and returns what the scope caught.
  CapturedError Capture(const std::function<void()>& fn,
                        wgpu::ErrorFilter filter = wgpu::ErrorFilter::Validation);

  wgpu::Instance instance;
  wgpu::Adapter adapter;
  wgpu::Device device;
  wgpu::Queue queue;
  std::vector<CapturedError> uncaptured;  // errors that reached no scope
  bool expectUncaptured = false;
};

// A compute shader from a body over `a` (read-only input) and `b` (read-write output), u32 index `i`.
std::string Kernel(std::string_view elementType, std::string_view body, int workgroupSize = 64);

}  // namespace shim_test
