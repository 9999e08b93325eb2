// Collatz step counts, written as wgpu-native's compute example and Dawn's C samples write a
// compute program against the standard webgpu.h: adapter and device requested through callback
// infos and waited for with wgpuInstanceWaitAny, a WGSL module, a pipeline with layout "auto"
// and its bind group layout from wgpuComputePipelineGetBindGroupLayout, a dispatch, a copy to a
// MapRead buffer mapped with wgpuBufferMapAsync and wgpuInstanceProcessEvents. Built as C11 and,
// from this same file, as C++. Prints its verdict; exits non-zero when a result is wrong.
#include <webgpu/webgpu.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 4096

static const char kShader[] =
    "@group(0) @binding(0) var<storage, read_write> v_indices : array<u32>;\n"
    "\n"
    "fn collatz_iterations(n_base : u32) -> u32 {\n"
    "  var n = n_base;\n"
    "  var i : u32 = 0u;\n"
    "  loop {\n"
    "    if (n <= 1u) { break; }\n"
    "    if (n % 2u == 0u) {\n"
    "      n = n / 2u;\n"
    "    } else {\n"
    "      if (n >= 1431655765u) { return 4294967295u; }\n"
    "      n = 3u * n + 1u;\n"
    "    }\n"
    "    i = i + 1u;\n"
    "  }\n"
    "  return i;\n"
    "}\n"
    "\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {\n"
    "  v_indices[global_id.x] = collatz_iterations(v_indices[global_id.x]);\n"
    "}\n";

static WGPUStringView sv(const char* s) {
  WGPUStringView v = WGPU_STRING_VIEW_INIT;
  v.data = s;
  return v;
}

static void print_sv(const char* what, WGPUStringView s) {
  printf("%s: %.*s\n", what,
         (int)(s.length == WGPU_STRLEN ? (s.data ? strlen(s.data) : 0) : s.length),
         s.data ? s.data : "");
}

struct State {
  WGPUAdapter adapter;
  WGPUDevice device;
  int mapped;
  int failed;
};

static void handle_request_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                   WGPUStringView message, void* userdata1, void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)userdata2;
  if (status != WGPURequestAdapterStatus_Success) {
    print_sv("request_adapter failed", message);
    state->failed = 1;
    return;
  }
  state->adapter = adapter;
}

static void handle_request_device(WGPURequestDeviceStatus status, WGPUDevice device,
                                  WGPUStringView message, void* userdata1, void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)userdata2;
  if (status != WGPURequestDeviceStatus_Success) {
    print_sv("request_device failed", message);
    state->failed = 1;
    return;
  }
  state->device = device;
}

static void handle_uncaptured_error(WGPUDevice const* device, WGPUErrorType type,
                                    WGPUStringView message, void* userdata1, void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)device;
  (void)userdata2;
  printf("uncaptured error (type %d)\n", (int)type);
  print_sv("message", message);
  state->failed = 1;
}

static void handle_buffer_map(WGPUMapAsyncStatus status, WGPUStringView message, void* userdata1,
                              void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)userdata2;
  if (status != WGPUMapAsyncStatus_Success) {
    print_sv("map failed", message);
    state->failed = 1;
  }
  state->mapped = 1;
}

static uint32_t collatz_cpu(uint32_t n) {
  uint32_t i = 0;
  while (n > 1) {
    if (n % 2 == 0) {
      n /= 2;
    } else {
      if (n >= 1431655765u) return 0xFFFFFFFFu;
      n = 3 * n + 1;
    }
    ++i;
  }
  return i;
}

int main(void) {
  struct State state;
  memset(&state, 0, sizeof state);

  WGPUInstance instance = wgpuCreateInstance(NULL);
  if (!instance) {
    printf("wgpuCreateInstance failed\n");
    return 1;
  }

  WGPURequestAdapterCallbackInfo adapterCallback = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  adapterCallback.mode = WGPUCallbackMode_WaitAnyOnly;
  adapterCallback.callback = handle_request_adapter;
  adapterCallback.userdata1 = &state;
  WGPUFutureWaitInfo wait = WGPU_FUTURE_WAIT_INFO_INIT;
  wait.future = wgpuInstanceRequestAdapter(instance, NULL, adapterCallback);
  if (wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX) != WGPUWaitStatus_Success ||
      !wait.completed || !state.adapter) {
    printf("no adapter\n");
    return 1;
  }

  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  if (wgpuAdapterGetInfo(state.adapter, &info) != WGPUStatus_Success) return 1;
  print_sv("adapter", info.device);
  wgpuAdapterInfoFreeMembers(info);

  WGPUDeviceDescriptor deviceDesc = WGPU_DEVICE_DESCRIPTOR_INIT;
  deviceDesc.label = sv("collatz device");
  deviceDesc.uncapturedErrorCallbackInfo.callback = handle_uncaptured_error;
  deviceDesc.uncapturedErrorCallbackInfo.userdata1 = &state;
  WGPURequestDeviceCallbackInfo deviceCallback = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  deviceCallback.mode = WGPUCallbackMode_WaitAnyOnly;
  deviceCallback.callback = handle_request_device;
  deviceCallback.userdata1 = &state;
  wait.future = wgpuAdapterRequestDevice(state.adapter, &deviceDesc, deviceCallback);
  wait.completed = WGPU_FALSE;
  if (wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX) != WGPUWaitStatus_Success ||
      !state.device) {
    printf("no device\n");
    return 1;
  }
  WGPUDevice device = state.device;
  WGPUQueue queue = wgpuDeviceGetQueue(device);

  uint32_t numbers[COUNT];
  for (uint32_t i = 0; i < COUNT; ++i) numbers[i] = i * 7u + 1u;
  const uint64_t size = sizeof numbers;

  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = sv(kShader);
  WGPUShaderModuleDescriptor moduleDesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  moduleDesc.nextInChain = &wgsl.chain;
  moduleDesc.label = sv("collatz");
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &moduleDesc);

  WGPUBufferDescriptor stagingDesc = WGPU_BUFFER_DESCRIPTOR_INIT;
  stagingDesc.label = sv("staging");
  stagingDesc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  stagingDesc.size = size;
  WGPUBuffer staging = wgpuDeviceCreateBuffer(device, &stagingDesc);

  WGPUBufferDescriptor storageDesc = WGPU_BUFFER_DESCRIPTOR_INIT;
  storageDesc.label = sv("storage");
  storageDesc.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc;
  storageDesc.size = size;
  WGPUBuffer storage = wgpuDeviceCreateBuffer(device, &storageDesc);

  WGPUComputePipelineDescriptor pipelineDesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pipelineDesc.label = sv("collatz");
  pipelineDesc.compute.module = module;
  pipelineDesc.compute.entryPoint = sv("main");
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pipelineDesc);

  WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupEntry entry = WGPU_BIND_GROUP_ENTRY_INIT;
  entry.binding = 0;
  entry.buffer = storage;
  entry.size = size;
  WGPUBindGroupDescriptor groupDesc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  groupDesc.label = sv("collatz group");
  groupDesc.layout = layout;
  groupDesc.entryCount = 1;
  groupDesc.entries = &entry;
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &groupDesc);

  WGPUCommandEncoderDescriptor encoderDesc = WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT;
  encoderDesc.label = sv("collatz encoder");
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, &encoderDesc);
  WGPUComputePassDescriptor passDesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  passDesc.label = sv("collatz pass");
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &passDesc);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, COUNT / 64, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, storage, 0, staging, 0, size);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, NULL);
  wgpuCommandEncoderRelease(encoder);

  wgpuQueueWriteBuffer(queue, storage, 0, numbers, size);
  wgpuQueueSubmit(queue, 1, &commands);
  wgpuCommandBufferRelease(commands);

  WGPUBufferMapCallbackInfo mapCallback = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  mapCallback.mode = WGPUCallbackMode_AllowProcessEvents;
  mapCallback.callback = handle_buffer_map;
  mapCallback.userdata1 = &state;
  wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, (size_t)size, mapCallback);
  for (int spins = 0; !state.mapped && spins < 1000000; ++spins)
    wgpuInstanceProcessEvents(instance);
  if (!state.mapped || state.failed ||
      wgpuBufferGetMapState(staging) != WGPUBufferMapState_Mapped) {
    printf("the staging buffer was not mapped\n");
    return 1;
  }

  const uint32_t* result = (const uint32_t*)wgpuBufferGetConstMappedRange(staging, 0, (size_t)size);
  uint32_t mismatches = 0;
  for (uint32_t i = 0; result && i < COUNT; ++i) {
    const uint32_t expected = collatz_cpu(numbers[i]);
    if (result[i] != expected && mismatches++ < 5)
      printf("steps(%u) = %u, expected %u\n", numbers[i], result[i], expected);
  }
  wgpuBufferUnmap(staging);

  wgpuBindGroupRelease(group);
  wgpuBindGroupLayoutRelease(layout);
  wgpuComputePipelineRelease(pipeline);
  wgpuBufferRelease(storage);
  wgpuBufferRelease(staging);
  wgpuShaderModuleRelease(module);
  wgpuQueueRelease(queue);
  wgpuDeviceRelease(device);
  wgpuAdapterRelease(state.adapter);
  wgpuInstanceRelease(instance);

  if (!result || mismatches != 0 || state.failed) {
    printf("c compute: %u of %d step counts differ\n", mismatches, COUNT);
    return 1;
  }
  printf("c compute: all %d collatz step counts match the CPU\n", COUNT);
  return 0;
}
