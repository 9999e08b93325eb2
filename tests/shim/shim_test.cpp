#include "shim_test.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>
#include <stdexcept>

namespace shim_test {

std::vector<uint32_t> CompileGlsl(std::string_view source) {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* text = source.data();
  const int length = static_cast<int>(source.size());
  shader.setStringsWithLengths(&text, &length, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
  if (!shader.parse(GetDefaultResources(), 450, false, EShMsgDefault))
    throw std::runtime_error(std::string("GLSL: ") + shader.getInfoLog());
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(EShMsgDefault))
    throw std::runtime_error(std::string("GLSL link: ") + program.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv);
  return spirv;
}

std::string Kernel(std::string_view type, std::string_view body, int workgroupSize) {
  std::string t(type);
  return "#version 450\nlayout(local_size_x = " + std::to_string(workgroupSize) +
         ") in;\n"
         "layout(set = 0, binding = 0, std430) readonly buffer A { " + t + " a[]; };\n"
         "layout(set = 0, binding = 1, std430) buffer B { " + t + " b[]; };\n"
         "void main() { uint i = gl_GlobalInvocationID.x; if (i >= uint(b.length())) return; " +
         std::string(body) + " }\n";
}

void ShimTest::SetUp() {
  instance = wgpu::CreateInstance();
  wgpu::RequestAdapterOptions options;
  Wait(instance.RequestAdapter(&options, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::RequestAdapterStatus status, wgpu::Adapter a,
                                   std::string_view message) {
                                 ASSERT_EQ(status, wgpu::RequestAdapterStatus::Success) << message;
                                 adapter = std::move(a);
                               }));
  ASSERT_TRUE(adapter);
  device = MakeDevice();
  ASSERT_TRUE(device);
  queue = device.GetQueue();
}

wgpu::Device ShimTest::MakeDevice(const wgpu::Limits* limits) {
  wgpu::DeviceDescriptor desc;
  desc.label = "test device";
  desc.requiredLimits = limits;
  desc.SetUncapturedErrorCallback([this](const wgpu::Device&, wgpu::ErrorType type, std::string_view m) {
    uncaptured.push_back({type, std::string(m)});
  });
  wgpu::Device result;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::RequestDeviceStatus status, wgpu::Device d, std::string_view m) {
                               EXPECT_EQ(status, wgpu::RequestDeviceStatus::Success) << m;
                               result = std::move(d);
                             }));
  return result;
}

void ShimTest::TearDown() {
  if (device) WaitIdle();
  if (!expectUncaptured) {
    for (const auto& e : uncaptured) ADD_FAILURE() << "uncaptured error: " << e.message;
  }
  EXPECT_EQ(instance.GetVulkanValidationMessageCount(), 0u) << "Vulkan validation reported problems";
}

wgpu::Buffer ShimTest::MakeBuffer(uint64_t size, wgpu::BufferUsage usage, std::string label) {
  wgpu::BufferDescriptor d;
  d.label = label;
  d.size = size;
  d.usage = usage;
  return device.CreateBuffer(&d);
}

std::vector<uint8_t> ShimTest::ReadBytes(const wgpu::Buffer& buffer, uint64_t offset, uint64_t size) {
  auto staging = MakeBuffer(size, wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst, "readback");
  auto encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(buffer, offset, staging, 0, size);
  Submit(encoder);
  bool mapped = false;
  Wait(staging.MapAsync(wgpu::MapMode::Read, 0, size, wgpu::CallbackMode::WaitAnyOnly,
                        [&](wgpu::MapAsyncStatus status, std::string_view m) {
                          EXPECT_EQ(status, wgpu::MapAsyncStatus::Success) << m;
                          mapped = status == wgpu::MapAsyncStatus::Success;
                        }));
  std::vector<uint8_t> out(size);
  if (mapped) {
    const void* p = staging.GetConstMappedRange(0, size);
    EXPECT_NE(p, nullptr);
    if (p) std::memcpy(out.data(), p, size);
    staging.Unmap();
  }
  return out;
}

wgpu::ShaderModule ShimTest::Module(std::string_view glsl, std::string label) {
  auto words = CompileGlsl(glsl);
  wgpu::ShaderSourceSPIRV spirv;
  spirv.codeSize = static_cast<uint32_t>(words.size());
  spirv.code = words.data();
  wgpu::ShaderModuleDescriptor d;
  d.nextInChain = &spirv;
  d.label = label;
  return device.CreateShaderModule(&d);
}

wgpu::ComputePipeline ShimTest::Pipeline(std::string_view glsl, std::string label) {
  wgpu::ComputePipelineDescriptor d;
  d.label = label;
  d.compute.module = Module(glsl, label + " module");
  return device.CreateComputePipeline(&d);
}

wgpu::BindGroup ShimTest::Group(const wgpu::ComputePipeline& pipeline, uint32_t index,
                                std::vector<wgpu::Buffer> buffers, std::string label) {
  wgpu::BindGroupDescriptor d;
  d.label = label;
  d.layout = pipeline.GetBindGroupLayout(index);
  std::vector<wgpu::BindGroupEntry> entries;
  for (uint32_t i = 0; i < buffers.size(); ++i)
    entries.push_back({.binding = i, .buffer = buffers[i]});
  d.entryCount = entries.size();
  d.entries = entries.data();
  return device.CreateBindGroup(&d);
}

void ShimTest::Submit(const wgpu::CommandEncoder& encoder) {
  auto commands = encoder.Finish();
  queue.Submit(1, &commands);
}

void ShimTest::DispatchOne(const wgpu::ComputePipeline& pipeline, const wgpu::BindGroup& group,
                           uint32_t workgroups) {
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  pass.DispatchWorkgroups(workgroups);
  pass.End();
  Submit(encoder);
}

void ShimTest::Wait(wgpu::Future future) {
  ASSERT_EQ(instance.WaitAny(future, 60'000'000'000ull), wgpu::WaitStatus::Success);
}

void ShimTest::WaitIdle() {
  Wait(queue.OnSubmittedWorkDone(wgpu::CallbackMode::WaitAnyOnly,
                                 [](wgpu::QueueWorkDoneStatus, std::string_view) {}));
}

CapturedError ShimTest::Capture(const std::function<void()>& fn, wgpu::ErrorFilter filter) {
  device.PushErrorScope(filter);
  fn();
  CapturedError result;
  Wait(device.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                            [&](wgpu::PopErrorScopeStatus status, wgpu::ErrorType type, std::string_view m) {
                              EXPECT_EQ(status, wgpu::PopErrorScopeStatus::Success);
                              result = {type, std::string(m)};
                            }));
  return result;
}

}  // namespace shim_test
