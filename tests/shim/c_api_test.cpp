// The standard C API (<webgpu/webgpu.h>): reference counting and lifetimes, and misuse (unknown
// chained structs, null descriptors and objects, invalid callback modes, texture bindings)
// reported through WebGPU's error mechanism, never a crash.
#include <gtest/gtest.h>
#include <webgpu/webgpu.h>
#include <webgpu/webgpu_cpp.h>

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace {

WGPUStringView SV(const char* s) {
  return WGPUStringView{s, WGPU_STRLEN};
}

std::string Str(WGPUStringView s) {
  if (!s.data) return {};
  return s.length == WGPU_STRLEN ? std::string(s.data) : std::string(s.data, s.length);
}

struct Error {
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    instance = wgpuCreateInstance(nullptr);
    ASSERT_NE(instance, nullptr);
    WGPURequestAdapterCallbackInfo info = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowSpontaneous;
    info.callback = [](WGPURequestAdapterStatus status, WGPUAdapter a, WGPUStringView, void* self,
                       void*) {
      if (status == WGPURequestAdapterStatus_Success) static_cast<CApi*>(self)->adapter = a;
    };
    info.userdata1 = this;
    wgpuInstanceRequestAdapter(instance, nullptr, info);
    ASSERT_NE(adapter, nullptr);
    device = MakeDevice(nullptr);
    ASSERT_NE(device, nullptr);
  }

  void TearDown() override {
    if (device) wgpuDeviceRelease(device);
    if (adapter) wgpuAdapterRelease(adapter);
    if (instance) wgpuInstanceRelease(instance);
    for (const auto& e : uncaptured) ADD_FAILURE() << "uncaptured error: " << e.message;
  }

  // Requests a device, with the test's uncaptured-error callback; null on failure (`message`
  // gets why).
  WGPUDevice MakeDevice(const WGPUDeviceDescriptor* given, std::string* message = nullptr) {
    WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
    if (given) desc = *given;
    desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                   WGPUStringView m, void* self, void*) {
      static_cast<CApi*>(self)->uncaptured.push_back({type, Str(m)});
    };
    desc.uncapturedErrorCallbackInfo.userdata1 = this;
    struct Result {
      WGPUDevice device = nullptr;
      std::string message;
    } result;
    WGPURequestDeviceCallbackInfo info = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowSpontaneous;
    info.callback = [](WGPURequestDeviceStatus, WGPUDevice d, WGPUStringView m, void* r, void*) {
      static_cast<Result*>(r)->device = d;
      static_cast<Result*>(r)->message = Str(m);
    };
    info.userdata1 = &result;
    wgpuAdapterRequestDevice(adapter, &desc, info);
    if (message) *message = result.message;
    return result.device;
  }

  // What a validation scope around `fn` caught.
  template <typename F>
  Error Capture(F fn) {
    wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
    fn();
    Error caught;
    WGPUPopErrorScopeCallbackInfo info = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowSpontaneous;
    info.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView m, void* e,
                       void*) {
      static_cast<Error*>(e)->type = type;
      static_cast<Error*>(e)->message = Str(m);
    };
    info.userdata1 = &caught;
    wgpuDevicePopErrorScope(device, info);
    return caught;
  }

  WGPUBuffer Buffer(uint64_t size, WGPUBufferUsage usage, const char* label = "buffer") {
    WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
    desc.label = SV(label);
    desc.usage = usage;
    desc.size = size;
    return wgpuDeviceCreateBuffer(device, &desc);
  }

  WGPUComputePipeline Pipeline(const char* wgsl) {
    WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
    source.code = SV(wgsl);
    WGPUShaderModuleDescriptor moduleDesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
    moduleDesc.nextInChain = &source.chain;
    WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &moduleDesc);
    WGPUComputePipelineDescriptor desc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    desc.compute.module = module;
    WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &desc);
    wgpuShaderModuleRelease(module);
    return pipeline;
  }

  // Submits, then maps `readback` and copies out its first `count` words.
  std::vector<uint32_t> Run(WGPUCommandEncoder encoder, WGPUBuffer readback, size_t count) {
    WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
    WGPUQueue queue = wgpuDeviceGetQueue(device);
    wgpuQueueSubmit(queue, 1, &commands);
    wgpuCommandBufferRelease(commands);
    wgpuQueueRelease(queue);
    WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_WaitAnyOnly;
    info.callback = [](WGPUMapAsyncStatus status, WGPUStringView m, void*, void*) {
      EXPECT_EQ(status, WGPUMapAsyncStatus_Success) << Str(m);
    };
    WGPUFutureWaitInfo wait = WGPU_FUTURE_WAIT_INFO_INIT;
    wait.future = wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, count * 4, info);
    EXPECT_EQ(wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX), WGPUWaitStatus_Success);
    std::vector<uint32_t> out(count);
    const void* data = wgpuBufferGetConstMappedRange(readback, 0, count * 4);
    if (data) std::memcpy(out.data(), data, count * 4);
    wgpuBufferUnmap(readback);
    return out;
  }

  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  std::vector<Error> uncaptured;
};

constexpr char kCopyWgsl[] = R"(
@group(0) @binding(0) var<storage, read> src : array<u32>;
@group(0) @binding(1) var<storage, read_write> dst : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < arrayLength(&dst)) { dst[id.x] = src[id.x] + 1u; }
}
)";

TEST_F(CApi, ReleasingTheLastReferenceFreesTheObject) {
  const uint64_t devicesBefore = wgpu::GetLiveDeviceCountForTesting();
  WGPUDevice second = MakeDevice(nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devicesBefore + 1);

  // A buffer's memory goes with its last reference, not with the first Release.
  const uint64_t memoryBefore = wgpu::GetBufferMemoryInUseForTesting();
  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.usage = WGPUBufferUsage_Storage;
  desc.size = 1 << 20;
  WGPUBuffer buffer = wgpuDeviceCreateBuffer(second, &desc);
  EXPECT_GE(wgpu::GetBufferMemoryInUseForTesting(), memoryBefore + (1 << 20));
  wgpuBufferAddRef(buffer);
  wgpuBufferRelease(buffer);
  EXPECT_GE(wgpu::GetBufferMemoryInUseForTesting(), memoryBefore + (1 << 20));
  EXPECT_EQ(wgpuBufferGetSize(buffer), uint64_t{1} << 20);
  wgpuBufferRelease(buffer);
  // A software device's memory is the host's, which zeroed the buffer: the memory goes at the
  // release. Where the host cannot see it (a discrete GPU), the zeroing is a GPU command still
  // pending, and the memory goes once that has run. Submitting nothing sends the pending commands.
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  ASSERT_EQ(wgpuAdapterGetInfo(adapter, &info), WGPUStatus_Success);
  if (info.adapterType == WGPUAdapterType_CPU) {
    EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), memoryBefore);
  }
  wgpuAdapterInfoFreeMembers(info);
  WGPUQueue queue = wgpuDeviceGetQueue(second);
  wgpuQueueSubmit(queue, 0, nullptr);
  WGPUQueueWorkDoneCallbackInfo done = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  done.mode = WGPUCallbackMode_WaitAnyOnly;
  done.callback = [](WGPUQueueWorkDoneStatus status, WGPUStringView m, void*, void*) {
    EXPECT_EQ(status, WGPUQueueWorkDoneStatus_Success) << Str(m);
  };
  WGPUFutureWaitInfo wait = WGPU_FUTURE_WAIT_INFO_INIT;
  wait.future = wgpuQueueOnSubmittedWorkDone(queue, done);
  EXPECT_EQ(wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX), WGPUWaitStatus_Success);
  wgpuQueueRelease(queue);
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), memoryBefore);

  // The device, with the queue it handed out (one object, whatever the number of calls).
  WGPUQueue q1 = wgpuDeviceGetQueue(second);
  WGPUQueue q2 = wgpuDeviceGetQueue(second);
  EXPECT_EQ(q1, q2);
  wgpuQueueRelease(q1);
  wgpuQueueRelease(q2);
  wgpuDeviceRelease(second);
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devicesBefore);
}

TEST_F(CApi, ABindGroupKeepsAReleasedBufferAlive) {
  constexpr uint32_t kCount = 256;
  std::vector<uint32_t> values(kCount);
  for (uint32_t i = 0; i < kCount; ++i) values[i] = i * 3;
  WGPUBuffer src = Buffer(kCount * 4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, "src");
  WGPUBuffer dst = Buffer(kCount * 4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, "dst");
  WGPUBuffer readback = Buffer(kCount * 4, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "rb");
  WGPUQueue queue = wgpuDeviceGetQueue(device);
  wgpuQueueWriteBuffer(queue, src, 0, values.data(), kCount * 4);
  wgpuQueueRelease(queue);

  WGPUComputePipeline pipeline = Pipeline(kCopyWgsl);
  WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupEntry entries[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  entries[0].binding = 0;
  entries[0].buffer = src;
  entries[1].binding = 1;
  entries[1].buffer = dst;
  WGPUBindGroupDescriptor groupDesc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  groupDesc.layout = layout;
  groupDesc.entryCount = 2;
  groupDesc.entries = entries;
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &groupDesc);
  wgpuBindGroupLayoutRelease(layout);

  const uint64_t memoryWithSrc = wgpu::GetBufferMemoryInUseForTesting();
  wgpuBufferRelease(src);  // the application's last reference; the bind group holds another
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), memoryWithSrc);

  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, nullptr);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, kCount / 64, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, dst, 0, readback, 0, kCount * 4);
  const std::vector<uint32_t> out = Run(encoder, readback, kCount);
  wgpuCommandEncoderRelease(encoder);
  for (uint32_t i = 0; i < kCount; ++i) ASSERT_EQ(out[i], values[i] + 1) << "at " << i;

  wgpuBindGroupRelease(group);  // now the buffer goes
  EXPECT_LT(wgpu::GetBufferMemoryInUseForTesting(), memoryWithSrc);
  wgpuComputePipelineRelease(pipeline);
  wgpuBufferRelease(dst);
  wgpuBufferRelease(readback);
}

// Dynamic offsets through the C API: one bind group, two dispatches, each writing src + 1 into
// the 256-byte region of dst its offset selects; a misaligned offset is a validation error.
TEST_F(CApi, DynamicOffsetsMoveTheBoundRange) {
  constexpr uint32_t kCount = 64;  // 256 bytes: one offset alignment
  std::vector<uint32_t> values(kCount);
  for (uint32_t i = 0; i < kCount; ++i) values[i] = i * 7;
  WGPUBuffer src = Buffer(kCount * 4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, "src");
  WGPUBuffer dst = Buffer(2 * kCount * 4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, "dst");
  WGPUBuffer readback = Buffer(2 * kCount * 4, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "rb");
  WGPUQueue queue = wgpuDeviceGetQueue(device);
  wgpuQueueWriteBuffer(queue, src, 0, values.data(), kCount * 4);
  wgpuQueueRelease(queue);

  WGPUBindGroupLayoutEntry layoutEntries[2] = {WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT,
                                               WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
  for (uint32_t b = 0; b < 2; ++b) {
    layoutEntries[b].binding = b;
    layoutEntries[b].visibility = WGPUShaderStage_Compute;
  }
  layoutEntries[0].buffer.type = WGPUBufferBindingType_ReadOnlyStorage;
  layoutEntries[1].buffer.type = WGPUBufferBindingType_Storage;
  layoutEntries[1].buffer.hasDynamicOffset = WGPU_TRUE;
  WGPUBindGroupLayoutDescriptor layoutDesc = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  layoutDesc.label = SV("dynamic dst");
  layoutDesc.entryCount = 2;
  layoutDesc.entries = layoutEntries;
  WGPUBindGroupLayout layout = wgpuDeviceCreateBindGroupLayout(device, &layoutDesc);
  WGPUPipelineLayoutDescriptor plDesc = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  plDesc.bindGroupLayoutCount = 1;
  plDesc.bindGroupLayouts = &layout;
  WGPUPipelineLayout pipelineLayout = wgpuDeviceCreatePipelineLayout(device, &plDesc);
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = SV(kCopyWgsl);
  WGPUShaderModuleDescriptor moduleDesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  moduleDesc.nextInChain = &source.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &moduleDesc);
  WGPUComputePipelineDescriptor pipelineDesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pipelineDesc.layout = pipelineLayout;
  pipelineDesc.compute.module = module;
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pipelineDesc);

  WGPUBindGroupEntry entries[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  entries[0].binding = 0;
  entries[0].buffer = src;
  entries[1].binding = 1;
  entries[1].buffer = dst;
  entries[1].size = kCount * 4;
  WGPUBindGroupDescriptor groupDesc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  groupDesc.layout = layout;
  groupDesc.entryCount = 2;
  groupDesc.entries = entries;
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &groupDesc);

  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, nullptr);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  for (uint32_t region = 0; region < 2; ++region) {
    const uint32_t offset = region * kCount * 4;
    wgpuComputePassEncoderSetBindGroup(pass, 0, group, 1, &offset);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  }
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, dst, 0, readback, 0, 2 * kCount * 4);
  const std::vector<uint32_t> out = Run(encoder, readback, 2 * kCount);
  wgpuCommandEncoderRelease(encoder);
  for (uint32_t i = 0; i < 2 * kCount; ++i) ASSERT_EQ(out[i], values[i % kCount] + 1) << "at " << i;

  const Error misaligned = Capture([&] {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(device, nullptr);
    WGPUComputePassEncoder p = wgpuCommandEncoderBeginComputePass(e, nullptr);
    const uint32_t offset = 4;
    wgpuComputePassEncoderSetBindGroup(p, 0, group, 1, &offset);
    wgpuComputePassEncoderEnd(p);
    wgpuComputePassEncoderRelease(p);
    wgpuCommandBufferRelease(wgpuCommandEncoderFinish(e, nullptr));
    wgpuCommandEncoderRelease(e);
  });
  EXPECT_EQ(misaligned.type, WGPUErrorType_Validation);
  EXPECT_NE(misaligned.message.find("Dynamic offset [0] (4)"), std::string::npos) << misaligned.message;
  EXPECT_NE(misaligned.message.find("minStorageBufferOffsetAlignment"), std::string::npos) << misaligned.message;

  wgpuBindGroupRelease(group);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuPipelineLayoutRelease(pipelineLayout);
  wgpuBindGroupLayoutRelease(layout);
  wgpuBufferRelease(src);
  wgpuBufferRelease(dst);
  wgpuBufferRelease(readback);
}

TEST_F(CApi, UnknownChainedStructsAreValidationErrors) {
  WGPUChainedStruct unknown{nullptr, static_cast<WGPUSType>(0x1234)};

  WGPUBuffer buffer = nullptr;
  Error e = Capture([&] {
    WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
    desc.nextInChain = &unknown;
    desc.usage = WGPUBufferUsage_CopyDst;
    desc.size = 16;
    buffer = wgpuDeviceCreateBuffer(device, &desc);
  });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("WGPUBufferDescriptor.nextInChain"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("0x00001234"), std::string::npos) << e.message;
  ASSERT_NE(buffer, nullptr);
  // An error buffer: using it is an error of its own.
  const uint32_t word = 7;
  e = Capture([&] {
    WGPUQueue queue = wgpuDeviceGetQueue(device);
    wgpuQueueWriteBuffer(queue, buffer, 0, &word, 4);
    wgpuQueueRelease(queue);
  });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("invalid"), std::string::npos) << e.message;
  wgpuBufferRelease(buffer);

  // After a WGSL source, in a shader module's chain.
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = SV(kCopyWgsl);
  wgsl.chain.next = &unknown;
  e = Capture([&] {
    WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
    desc.nextInChain = &wgsl.chain;
    wgpuShaderModuleRelease(wgpuDeviceCreateShaderModule(device, &desc));
  });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("WGPUShaderModuleDescriptor"), std::string::npos) << e.message;

  // Two shader sources.
  WGPUShaderSourceWGSL second = WGPU_SHADER_SOURCE_WGSL_INIT;
  second.code = SV(kCopyWgsl);
  wgsl.chain.next = &second.chain;
  e = Capture([&] {
    WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
    desc.nextInChain = &wgsl.chain;
    wgpuShaderModuleRelease(wgpuDeviceCreateShaderModule(device, &desc));
  });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("more than one shader source"), std::string::npos) << e.message;

  // In a compute pass descriptor: recorded in the encoder, reported at Finish.
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUComputePassDescriptor passDesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  passDesc.nextInChain = &unknown;
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &passDesc);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  WGPUCommandBuffer commands = nullptr;
  e = Capture([&] { commands = wgpuCommandEncoderFinish(encoder, nullptr); });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("WGPUComputePassDescriptor"), std::string::npos) << e.message;
  wgpuCommandBufferRelease(commands);
  wgpuCommandEncoderRelease(encoder);

  // In a device descriptor: the request fails and says why.
  WGPUDeviceDescriptor deviceDesc = WGPU_DEVICE_DESCRIPTOR_INIT;
  deviceDesc.nextInChain = &unknown;
  std::string why;
  EXPECT_EQ(MakeDevice(&deviceDesc, &why), nullptr);
  EXPECT_NE(why.find("WGPUDeviceDescriptor.nextInChain"), std::string::npos) << why;

  // In an instance descriptor: no instance. In an out-struct: an error status.
  WGPUInstanceDescriptor instanceDesc = WGPU_INSTANCE_DESCRIPTOR_INIT;
  instanceDesc.nextInChain = &unknown;
  EXPECT_EQ(wgpuCreateInstance(&instanceDesc), nullptr);
  WGPULimits limits = WGPU_LIMITS_INIT;
  limits.nextInChain = &unknown;
  EXPECT_EQ(wgpuDeviceGetLimits(device, &limits), WGPUStatus_Error);
}

TEST_F(CApi, NullDescriptorsAndObjectsAreReportedNotDereferenced) {
  WGPUBuffer buffer = nullptr;
  Error e = Capture([&] { buffer = wgpuDeviceCreateBuffer(device, nullptr); });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("descriptor is null"), std::string::npos) << e.message;
  EXPECT_NE(buffer, nullptr);
  wgpuBufferRelease(buffer);

  for (int which = 0; which < 4; ++which) {
    e = Capture([&] {
      switch (which) {
        case 0:
          wgpuShaderModuleRelease(wgpuDeviceCreateShaderModule(device, nullptr));
          break;
        case 1:
          wgpuBindGroupLayoutRelease(wgpuDeviceCreateBindGroupLayout(device, nullptr));
          break;
        case 2:
          wgpuBindGroupRelease(wgpuDeviceCreateBindGroup(device, nullptr));
          break;
        case 3:
          wgpuComputePipelineRelease(wgpuDeviceCreateComputePipeline(device, nullptr));
          break;
      }
    });
    EXPECT_EQ(e.type, WGPUErrorType_Validation) << "creation " << which;
    EXPECT_NE(e.message.find("descriptor is null"), std::string::npos) << e.message;
  }

  // A null buffer or null data in WriteBuffer: validation errors on the queue's device.
  WGPUQueue queue = wgpuDeviceGetQueue(device);
  e = Capture([&] { wgpuQueueWriteBuffer(queue, nullptr, 0, "abcd", 4); });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("buffer is null"), std::string::npos) << e.message;
  WGPUBuffer target = Buffer(16, WGPUBufferUsage_CopyDst);
  e = Capture([&] { wgpuQueueWriteBuffer(queue, target, 0, nullptr, 4); });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("data is null"), std::string::npos) << e.message;
  wgpuBufferRelease(target);
  wgpuQueueRelease(queue);

  // No object at all: nothing to report an error to; the call does nothing.
  EXPECT_EQ(wgpuBufferGetSize(nullptr), 0u);
  EXPECT_EQ(wgpuDeviceCreateBuffer(nullptr, nullptr), nullptr);
  wgpuBufferRelease(nullptr);
  EXPECT_EQ(wgpuInstanceWaitAny(instance, 2, nullptr, 0), WGPUWaitStatus_Error);
}

TEST_F(CApi, AnInvalidCallbackModeNeverCallsBack) {
  bool called = false;
  WGPUQueue queue = wgpuDeviceGetQueue(device);
  WGPUQueueWorkDoneCallbackInfo info = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;  // mode 0
  info.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void* c, void*) {
    *static_cast<bool*>(c) = true;
  };
  info.userdata1 = &called;
  const WGPUFuture future = wgpuQueueOnSubmittedWorkDone(queue, info);
  EXPECT_EQ(future.id, 0u);
  wgpuInstanceProcessEvents(instance);
  EXPECT_FALSE(called);
  wgpuQueueRelease(queue);
}

TEST_F(CApi, TextureAndSamplerBindingsAreRefused) {
  WGPUBindGroupLayoutEntry entry = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  entry.binding = 0;
  entry.visibility = WGPUShaderStage_Compute;
  entry.texture.sampleType = WGPUTextureSampleType_Undefined;  // a texture binding
  WGPUBindGroupLayoutDescriptor desc = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  desc.entryCount = 1;
  desc.entries = &entry;
  const Error e =
      Capture([&] { wgpuBindGroupLayoutRelease(wgpuDeviceCreateBindGroupLayout(device, &desc)); });
  EXPECT_EQ(e.type, WGPUErrorType_Validation);
  EXPECT_NE(e.message.find("texture binding"), std::string::npos) << e.message;

  entry.texture.sampleType = WGPUTextureSampleType_BindingNotUsed;
  entry.buffer.type = static_cast<WGPUBufferBindingType>(7);
  const Error type =
      Capture([&] { wgpuBindGroupLayoutRelease(wgpuDeviceCreateBindGroupLayout(device, &desc)); });
  EXPECT_EQ(type.type, WGPUErrorType_Validation);
  EXPECT_NE(type.message.find("not a WGPUBufferBindingType"), std::string::npos) << type.message;

  WGPUComputePassDescriptor passDesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  passDesc.timestampWrites = &writes;
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &passDesc);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  const Error finish =
      Capture([&] { wgpuCommandBufferRelease(wgpuCommandEncoderFinish(encoder, nullptr)); });
  EXPECT_EQ(finish.type, WGPUErrorType_Validation);
  EXPECT_NE(finish.message.find("timestampWrites"), std::string::npos) << finish.message;
  wgpuCommandEncoderRelease(encoder);
}

TEST_F(CApi, AFailedDeviceRequestLosesTheDeviceItNeverMade) {
  struct Lost {
    int calls = 0;
    WGPUDeviceLostReason reason{};
    bool nullDevice = false;
  } lost;
  // A feature the shim never offers (it has no render passes).
  const WGPUFeatureName feature = WGPUFeatureName_DepthClipControl;
  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.requiredFeatureCount = 1;
  desc.requiredFeatures = &feature;
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  desc.deviceLostCallbackInfo.callback = [](WGPUDevice const* d, WGPUDeviceLostReason reason,
                                            WGPUStringView, void* l, void*) {
    auto* out = static_cast<Lost*>(l);
    ++out->calls;
    out->reason = reason;
    out->nullDevice = d && *d == nullptr;
  };
  desc.deviceLostCallbackInfo.userdata1 = &lost;
  std::string why;
  EXPECT_EQ(MakeDevice(&desc, &why), nullptr);
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(lost.calls, 1);
  EXPECT_EQ(lost.reason, WGPUDeviceLostReason_FailedCreation);
  EXPECT_TRUE(lost.nullDevice);
}

TEST_F(CApi, OutStructsProcsAndFreeMembers) {
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  ASSERT_EQ(wgpuAdapterGetInfo(adapter, &info), WGPUStatus_Success);
  EXPECT_EQ(info.backendType, WGPUBackendType_Vulkan);
  ASSERT_NE(info.device.data, nullptr);
  EXPECT_GT(info.device.length, 0u);
  EXPECT_EQ(info.device.data[info.device.length], '\0');
  WGPUAdapterInfo fromDevice = WGPU_ADAPTER_INFO_INIT;
  ASSERT_EQ(wgpuDeviceGetAdapterInfo(device, &fromDevice), WGPUStatus_Success);
  EXPECT_EQ(Str(fromDevice.device), Str(info.device));
  wgpuAdapterInfoFreeMembers(info);
  wgpuAdapterInfoFreeMembers(fromDevice);

  WGPULimits adapterLimits = WGPU_LIMITS_INIT;
  WGPULimits deviceLimits = WGPU_LIMITS_INIT;
  ASSERT_EQ(wgpuAdapterGetLimits(adapter, &adapterLimits), WGPUStatus_Success);
  ASSERT_EQ(wgpuDeviceGetLimits(device, &deviceLimits), WGPUStatus_Success);
  EXPECT_EQ(deviceLimits.maxBindGroups, 4u);  // WebGPU's default: the device asked for none
  EXPECT_GE(adapterLimits.maxStorageBufferBindingSize, deviceLimits.maxStorageBufferBindingSize);
  EXPECT_EQ(deviceLimits.maxComputeWorkgroupSizeX, 256u);
  // Every member is filled (WGPU_LIMITS_INIT leaves them all "undefined").
  for (const WGPULimits& l : {adapterLimits, deviceLimits}) {
    const uint32_t u32s[] = {l.maxTextureDimension1D,
                             l.maxTextureDimension2D,
                             l.maxTextureDimension3D,
                             l.maxTextureArrayLayers,
                             l.maxBindGroups,
                             l.maxBindGroupsPlusVertexBuffers,
                             l.maxBindingsPerBindGroup,
                             l.maxDynamicUniformBuffersPerPipelineLayout,
                             l.maxDynamicStorageBuffersPerPipelineLayout,
                             l.maxSampledTexturesPerShaderStage,
                             l.maxSamplersPerShaderStage,
                             l.maxStorageBuffersPerShaderStage,
                             l.maxStorageTexturesPerShaderStage,
                             l.maxUniformBuffersPerShaderStage,
                             l.minUniformBufferOffsetAlignment,
                             l.minStorageBufferOffsetAlignment,
                             l.maxVertexBuffers,
                             l.maxVertexAttributes,
                             l.maxVertexBufferArrayStride,
                             l.maxInterStageShaderVariables,
                             l.maxColorAttachments,
                             l.maxColorAttachmentBytesPerSample,
                             l.maxComputeWorkgroupStorageSize,
                             l.maxComputeInvocationsPerWorkgroup,
                             l.maxComputeWorkgroupSizeX,
                             l.maxComputeWorkgroupSizeY,
                             l.maxComputeWorkgroupSizeZ,
                             l.maxComputeWorkgroupsPerDimension,
                             l.maxImmediateSize};
    for (size_t i = 0; i < std::size(u32s); ++i) EXPECT_NE(u32s[i], WGPU_LIMIT_U32_UNDEFINED) << i;
    for (uint64_t v :
         {l.maxUniformBufferBindingSize, l.maxStorageBufferBindingSize, l.maxBufferSize})
      EXPECT_NE(v, WGPU_LIMIT_U64_UNDEFINED);
  }
  // Requested limits reach the device: one above the default, one at the adapter's maximum.
  WGPULimits wanted = WGPU_LIMITS_INIT;
  wanted.maxStorageBuffersPerShaderStage = adapterLimits.maxStorageBuffersPerShaderStage;
  wanted.maxComputeWorkgroupStorageSize = adapterLimits.maxComputeWorkgroupStorageSize;
  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.requiredLimits = &wanted;
  WGPUDevice limited = MakeDevice(&desc);
  ASSERT_NE(limited, nullptr);
  WGPULimits got = WGPU_LIMITS_INIT;
  ASSERT_EQ(wgpuDeviceGetLimits(limited, &got), WGPUStatus_Success);
  EXPECT_EQ(got.maxStorageBuffersPerShaderStage, adapterLimits.maxStorageBuffersPerShaderStage);
  EXPECT_EQ(got.maxComputeWorkgroupStorageSize, adapterLimits.maxComputeWorkgroupStorageSize);
  EXPECT_EQ(got.maxBindGroups, 4u);
  wgpuDeviceRelease(limited);

  WGPUSupportedInstanceFeatures features = WGPU_SUPPORTED_INSTANCE_FEATURES_INIT;
  wgpuGetInstanceFeatures(&features);
  ASSERT_EQ(features.featureCount, 3u);
  EXPECT_EQ(features.features[0], WGPUInstanceFeatureName_TimedWaitAny);
  wgpuSupportedInstanceFeaturesFreeMembers(features);
  EXPECT_TRUE(wgpuHasInstanceFeature(WGPUInstanceFeatureName_ShaderSourceSPIRV));
  EXPECT_FALSE(wgpuAdapterHasFeature(adapter, WGPUFeatureName_DepthClipControl));
  WGPUSupportedFeatures deviceFeatures = WGPU_SUPPORTED_FEATURES_INIT;
  wgpuDeviceGetFeatures(device, &deviceFeatures);
  EXPECT_EQ(deviceFeatures.featureCount, 0u);
  wgpuSupportedFeaturesFreeMembers(deviceFeatures);

  EXPECT_EQ(wgpuGetProcAddress(SV("wgpuDeviceCreateBuffer")),
            reinterpret_cast<WGPUProc>(&wgpuDeviceCreateBuffer));
  EXPECT_EQ(wgpuGetProcAddress(SV("wgpuInstanceWaitAny")),
            reinterpret_cast<WGPUProc>(&wgpuInstanceWaitAny));
  EXPECT_EQ(wgpuGetProcAddress(SV("wgpuDeviceCreateRenderPipeline")), nullptr);
  auto createInstance =
      reinterpret_cast<WGPUProcCreateInstance>(wgpuGetProcAddress(SV("wgpuCreateInstance")));
  ASSERT_NE(createInstance, nullptr);
  WGPUInstance other = createInstance(nullptr);
  EXPECT_NE(other, nullptr);
  wgpuInstanceRelease(other);
}

}  // namespace
