// WebGPU error handling written as a program for Dawn's webgpu_cpp.h is written: error scopes
// (PushErrorScope / PopErrorScope with a callback-mode future) catch a buffer with an invalid
// usage and a WGSL module with an error, whose compilation info names the line; nested scopes
// route an error to the scope whose filter matches; an error outside any scope reaches the
// uncaptured-error callback. It must build against the shim unchanged; the test checks that every
// error arrived where WebGPU says it goes.
#include <webgpu/webgpu_cpp.h>
#include <webgpu/webgpu_cpp_print.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

wgpu::Instance instance;
wgpu::Adapter adapter;
wgpu::Device device;
int uncapturedErrors = 0;

// Line 4 uses a name that does not exist.
const char kBrokenWGSL[] = R"(
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  let x : f32 = undefinedValue * 2.0;
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
        std::cout << "Uncaptured error: " << errorType << " - message: " << message << "\n";
        ++uncapturedErrors;
      });
  desc.SetDeviceLostCallback(
      wgpu::CallbackMode::AllowSpontaneous,
      [](const wgpu::Device&, wgpu::DeviceLostReason reason, wgpu::StringView message) {
        std::cout << "Device lost: " << reason << " - " << message << "\n";
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

// Pops the innermost error scope and waits for its verdict.
wgpu::ErrorType PopErrorScope(std::string* messageOut) {
  wgpu::ErrorType result = wgpu::ErrorType::Unknown;
  wgpu::Future future = device.PopErrorScope(
      wgpu::CallbackMode::WaitAnyOnly,
      [&](wgpu::PopErrorScopeStatus status, wgpu::ErrorType type, wgpu::StringView message) {
        if (status != wgpu::PopErrorScopeStatus::Success) return;
        result = type;
        *messageOut = std::string(message);
      });
  instance.WaitAny(future, UINT64_MAX);
  return result;
}

int main() {
  Init();
  int failures = 0;
  auto expect = [&failures](bool ok, const char* what) {
    std::cout << (ok ? "ok: " : "FAILED: ") << what << "\n";
    if (!ok) ++failures;
  };
  std::string message;

  // 1. MapRead may only be combined with CopyDst.
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  wgpu::BufferDescriptor badDesc{.label = "bad usage",
                                 .usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::Storage,
                                 .size = 256};
  wgpu::Buffer bad = device.CreateBuffer(&badDesc);
  wgpu::ErrorType type = PopErrorScope(&message);
  std::cout << "buffer: " << type << " - " << message << "\n";
  expect(type == wgpu::ErrorType::Validation, "an invalid buffer usage is a validation error");
  expect(message.find("bad usage") != std::string::npos, "the message names the buffer's label");

  // 2. A WGSL error: the scope catches it and the compilation info points at the line.
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  wgpu::ShaderSourceWGSL wgsl{{.code = kBrokenWGSL}};
  wgpu::ShaderModuleDescriptor moduleDesc{.nextInChain = &wgsl, .label = "broken"};
  wgpu::ShaderModule shaderModule = device.CreateShaderModule(&moduleDesc);
  type = PopErrorScope(&message);
  expect(type == wgpu::ErrorType::Validation, "a WGSL error is a validation error");
  uint64_t errorLine = 0;
  wgpu::Future info = shaderModule.GetCompilationInfo(
      wgpu::CallbackMode::WaitAnyOnly, [&errorLine](wgpu::CompilationInfoRequestStatus status,
                                                    const wgpu::CompilationInfo* compilationInfo) {
        if (status != wgpu::CompilationInfoRequestStatus::Success) return;
        for (size_t i = 0; i < compilationInfo->messageCount; ++i) {
          const wgpu::CompilationMessage& m = compilationInfo->messages[i];
          std::cout << "wgsl: " << m.type << " at " << m.lineNum << ":" << m.linePos << ": "
                    << m.message << "\n";
          if (m.type == wgpu::CompilationMessageType::Error) errorLine = m.lineNum;
        }
      });
  instance.WaitAny(info, UINT64_MAX);
  expect(errorLine == 4, "the compilation info reports the error on line 4");

  // 3. Nested scopes: an out-of-memory scope lets a validation error through to the outer one.
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  device.PushErrorScope(wgpu::ErrorFilter::OutOfMemory);
  wgpu::BufferDescriptor unalignedDesc{.label = "unaligned",
                                       .usage = wgpu::BufferUsage::CopyDst,
                                       .size = 6,
                                       .mappedAtCreation = true};
  wgpu::Buffer unaligned = device.CreateBuffer(&unalignedDesc);
  unaligned.Unmap();
  wgpu::ErrorType inner = PopErrorScope(&message);
  wgpu::ErrorType outer = PopErrorScope(&message);
  expect(inner == wgpu::ErrorType::NoError, "the out-of-memory scope saw no error");
  expect(outer == wgpu::ErrorType::Validation, "the validation scope caught the error");

  // 4. No scope: the uncaptured-error callback receives it (a write at an unaligned offset).
  wgpu::BufferDescriptor targetDesc{
      .label = "target", .usage = wgpu::BufferUsage::CopyDst, .size = 16};
  wgpu::Buffer target = device.CreateBuffer(&targetDesc);
  const uint32_t value = 42;
  device.GetQueue().WriteBuffer(target, 2, &value, sizeof(value));
  instance.ProcessEvents();
  expect(uncapturedErrors == 1, "an error outside any scope reaches the uncaptured-error callback");

  if (failures != 0) {
    std::cout << "error scopes: " << failures << " checks failed\n";
    return 1;
  }
  std::cout << "error scopes: every error arrived where WebGPU routes it\n";
  return 0;
}
