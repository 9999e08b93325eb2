// A compute program against the standard webgpu.h that leans on the API's asynchronous and
// ownership rules: a pipeline from wgpuDeviceCreateComputePipelineAsync (and a failing one,
// whose error goes to its callback), its bind group layout from GetBindGroupLayout, a second
// pipeline from SPIR-V (WGPUShaderSourceSPIRV), an indirect dispatch, references juggled with
// AddRef/Release (the input buffer is released before the submit: its bind group keeps it
// alive), and the map and work-done futures waited for together with wgpuInstanceWaitAny.
#include <webgpu/webgpu.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scale_spv.h"

#define COUNT 1024

static const char kFill[] =
    "@group(0) @binding(0) var<storage, read> input : array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> output : array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id : vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i < arrayLength(&output)) {\n"
    "    output[i] = input[i] * 3u + i;\n"
    "  }\n"
    "}\n";

static WGPUStringView sv(const char* s) {
  WGPUStringView v = WGPU_STRING_VIEW_INIT;
  v.data = s;
  return v;
}

struct State {
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUComputePipeline pipeline;
  WGPUCreatePipelineAsyncStatus badStatus;
  int badCalled;
  int badGotNull;
  int mapped;
  int workDone;
  int errors;
};

static void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                       void* userdata1, void* userdata2) {
  (void)status;
  (void)message;
  (void)userdata2;
  ((struct State*)userdata1)->adapter = adapter;
}

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                      void* userdata1, void* userdata2) {
  (void)status;
  (void)message;
  (void)userdata2;
  ((struct State*)userdata1)->device = device;
}

static void on_error(WGPUDevice const* device, WGPUErrorType type, WGPUStringView message,
                     void* userdata1, void* userdata2) {
  (void)device;
  (void)userdata2;
  printf("uncaptured error %d: %.*s\n", (int)type,
         (int)(message.length == WGPU_STRLEN ? strlen(message.data) : message.length),
         message.data);
  ++((struct State*)userdata1)->errors;
}

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline,
                        WGPUStringView message, void* userdata1, void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)userdata2;
  if (status != WGPUCreatePipelineAsyncStatus_Success) {
    printf("CreateComputePipelineAsync: %.*s\n",
           (int)(message.length == WGPU_STRLEN ? strlen(message.data) : message.length),
           message.data);
    return;
  }
  state->pipeline = pipeline;
}

static void on_bad_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline,
                            WGPUStringView message, void* userdata1, void* userdata2) {
  struct State* state = (struct State*)userdata1;
  (void)message;
  (void)userdata2;
  state->badCalled = 1;
  state->badStatus = status;
  state->badGotNull = pipeline == NULL;
}

static void on_map(WGPUMapAsyncStatus status, WGPUStringView message, void* userdata1,
                   void* userdata2) {
  (void)message;
  (void)userdata2;
  ((struct State*)userdata1)->mapped = status == WGPUMapAsyncStatus_Success;
}

static void on_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void* userdata1,
                         void* userdata2) {
  (void)message;
  (void)userdata2;
  ((struct State*)userdata1)->workDone = status == WGPUQueueWorkDoneStatus_Success;
}

// Waits until every future of `futures` has completed.
static int wait_all(WGPUInstance instance, WGPUFutureWaitInfo* futures, size_t count) {
  for (int rounds = 0; rounds < 100; ++rounds) {
    size_t pending = 0;
    for (size_t i = 0; i < count; ++i) pending += !futures[i].completed;
    if (pending == 0) return 1;
    WGPUFutureWaitInfo open[4];
    size_t n = 0;
    for (size_t i = 0; i < count; ++i)
      if (!futures[i].completed) open[n++] = futures[i];
    if (wgpuInstanceWaitAny(instance, n, open, 10ull * 1000 * 1000 * 1000) !=
        WGPUWaitStatus_Success)
      return 0;
    for (size_t i = 0, j = 0; i < count; ++i)
      if (!futures[i].completed) futures[i].completed = open[j++].completed;
  }
  return 0;
}

static WGPUBuffer make_buffer(WGPUDevice device, const char* label, WGPUBufferUsage usage,
                              uint64_t size) {
  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = sv(label);
  desc.usage = usage;
  desc.size = size;
  return wgpuDeviceCreateBuffer(device, &desc);
}

int main(void) {
  struct State state;
  memset(&state, 0, sizeof state);
  WGPUInstance instance = wgpuCreateInstance(NULL);

  WGPURequestAdapterCallbackInfo adapterInfo = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  adapterInfo.mode = WGPUCallbackMode_WaitAnyOnly;
  adapterInfo.callback = on_adapter;
  adapterInfo.userdata1 = &state;
  WGPUFutureWaitInfo wait = WGPU_FUTURE_WAIT_INFO_INIT;
  wait.future = wgpuInstanceRequestAdapter(instance, NULL, adapterInfo);
  if (!wait_all(instance, &wait, 1) || !state.adapter) return printf("no adapter\n"), 1;

  WGPUDeviceDescriptor deviceDesc = WGPU_DEVICE_DESCRIPTOR_INIT;
  deviceDesc.uncapturedErrorCallbackInfo.callback = on_error;
  deviceDesc.uncapturedErrorCallbackInfo.userdata1 = &state;
  WGPURequestDeviceCallbackInfo deviceInfo = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  deviceInfo.mode = WGPUCallbackMode_WaitAnyOnly;
  deviceInfo.callback = on_device;
  deviceInfo.userdata1 = &state;
  wait.future = wgpuAdapterRequestDevice(state.adapter, &deviceDesc, deviceInfo);
  wait.completed = WGPU_FALSE;
  if (!wait_all(instance, &wait, 1) || !state.device) return printf("no device\n"), 1;
  WGPUDevice device = state.device;
  WGPUQueue queue = wgpuDeviceGetQueue(device);

  // Two asynchronous creations, waited for together: one good, one naming an entry point the
  // module lacks (a validation error, which goes to its callback with a null pipeline).
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = sv(kFill);
  WGPUShaderModuleDescriptor moduleDesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  moduleDesc.nextInChain = &wgsl.chain;
  moduleDesc.label = sv("fill");
  WGPUShaderModule fillModule = wgpuDeviceCreateShaderModule(device, &moduleDesc);
  WGPUComputePipelineDescriptor pipelineDesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pipelineDesc.label = sv("fill");
  pipelineDesc.compute.module = fillModule;
  WGPUCreateComputePipelineAsyncCallbackInfo good =
      WGPU_CREATE_COMPUTE_PIPELINE_ASYNC_CALLBACK_INFO_INIT;
  good.mode = WGPUCallbackMode_AllowProcessEvents;
  good.callback = on_pipeline;
  good.userdata1 = &state;
  WGPUCreateComputePipelineAsyncCallbackInfo bad = good;
  bad.callback = on_bad_pipeline;
  WGPUFutureWaitInfo creations[2] = {WGPU_FUTURE_WAIT_INFO_INIT, WGPU_FUTURE_WAIT_INFO_INIT};
  creations[0].future = wgpuDeviceCreateComputePipelineAsync(device, &pipelineDesc, good);
  pipelineDesc.compute.entryPoint = sv("no_such_entry_point");
  creations[1].future = wgpuDeviceCreateComputePipelineAsync(device, &pipelineDesc, bad);
  wgpuShaderModuleRelease(fillModule);  // the pipelines keep what they need
  if (!wait_all(instance, creations, 2) || !state.pipeline) return printf("no pipeline\n"), 1;
  int ok = 1;
  if (!state.badCalled || state.badStatus != WGPUCreatePipelineAsyncStatus_ValidationError ||
      !state.badGotNull) {
    printf("the failing creation did not report ValidationError with a null pipeline\n");
    ok = 0;
  }
  WGPUComputePipeline fill = state.pipeline;
  wgpuComputePipelineAddRef(fill);  // two references now; both released at the end

  // The second kernel from SPIR-V, layout "auto".
  WGPUShaderSourceSPIRV spirv = WGPU_SHADER_SOURCE_SPIRV_INIT;
  spirv.code = kScaleSpv;
  spirv.codeSize = (uint32_t)(sizeof kScaleSpv / sizeof kScaleSpv[0]);
  moduleDesc.nextInChain = &spirv.chain;
  moduleDesc.label = sv("scale");
  WGPUShaderModule scaleModule = wgpuDeviceCreateShaderModule(device, &moduleDesc);
  WGPUComputePipelineDescriptor scaleDesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  scaleDesc.label = sv("scale");
  scaleDesc.compute.module = scaleModule;
  scaleDesc.compute.entryPoint = sv("main");
  WGPUComputePipeline scale = wgpuDeviceCreateComputePipeline(device, &scaleDesc);
  wgpuShaderModuleRelease(scaleModule);

  uint32_t input[COUNT];
  for (uint32_t i = 0; i < COUNT; ++i) input[i] = (i * 2654435761u) >> 20;
  const uint64_t size = sizeof input;
  WGPUBuffer inputBuffer =
      make_buffer(device, "input", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, size);
  WGPUBuffer output =
      make_buffer(device, "output", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, size);
  WGPUBuffer readback =
      make_buffer(device, "readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, size);
  WGPUBuffer indirect =
      make_buffer(device, "indirect", WGPUBufferUsage_Indirect | WGPUBufferUsage_CopyDst, 32);
  wgpuQueueWriteBuffer(queue, inputBuffer, 0, input, size);
  const uint32_t dispatch[4] = {COUNT / 64, 1, 1, 0};
  wgpuQueueWriteBuffer(queue, indirect, 16, dispatch, sizeof dispatch);

  WGPUBindGroupLayout fillLayout = wgpuComputePipelineGetBindGroupLayout(fill, 0);
  WGPUBindGroupEntry fillEntries[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  fillEntries[0].binding = 0;
  fillEntries[0].buffer = inputBuffer;
  fillEntries[1].binding = 1;
  fillEntries[1].buffer = output;
  WGPUBindGroupDescriptor groupDesc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  groupDesc.layout = fillLayout;
  groupDesc.entryCount = 2;
  groupDesc.entries = fillEntries;
  WGPUBindGroup fillGroup = wgpuDeviceCreateBindGroup(device, &groupDesc);
  wgpuBindGroupLayoutRelease(fillLayout);
  wgpuBufferRelease(inputBuffer);  // the bind group keeps the buffer alive

  WGPUBindGroupLayout scaleLayout = wgpuComputePipelineGetBindGroupLayout(scale, 0);
  WGPUBindGroupEntry scaleEntry = WGPU_BIND_GROUP_ENTRY_INIT;
  scaleEntry.buffer = output;
  groupDesc.layout = scaleLayout;
  groupDesc.entryCount = 1;
  groupDesc.entries = &scaleEntry;
  WGPUBindGroup scaleGroup = wgpuDeviceCreateBindGroup(device, &groupDesc);
  wgpuBindGroupLayoutRelease(scaleLayout);

  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, NULL);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, NULL);
  wgpuComputePassEncoderSetPipeline(pass, fill);
  wgpuComputePassEncoderSetBindGroup(pass, 0, fillGroup, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, indirect, 16);
  wgpuComputePassEncoderSetPipeline(pass, scale);
  wgpuComputePassEncoderSetBindGroup(pass, 0, scaleGroup, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, COUNT / 64, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, output, 0, readback, 0, size);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, NULL);
  wgpuCommandEncoderRelease(encoder);
  wgpuQueueSubmit(queue, 1, &commands);
  wgpuCommandBufferRelease(commands);

  WGPUQueueWorkDoneCallbackInfo doneInfo = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  doneInfo.mode = WGPUCallbackMode_WaitAnyOnly;
  doneInfo.callback = on_work_done;
  doneInfo.userdata1 = &state;
  WGPUBufferMapCallbackInfo mapInfo = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  mapInfo.mode = WGPUCallbackMode_WaitAnyOnly;
  mapInfo.callback = on_map;
  mapInfo.userdata1 = &state;
  WGPUFutureWaitInfo done[2] = {WGPU_FUTURE_WAIT_INFO_INIT, WGPU_FUTURE_WAIT_INFO_INIT};
  done[0].future = wgpuQueueOnSubmittedWorkDone(queue, doneInfo);
  done[1].future = wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, (size_t)size, mapInfo);
  if (!wait_all(instance, done, 2) || !state.workDone || !state.mapped) {
    printf("the work did not complete or the map failed\n");
    return 1;
  }

  const uint32_t* result =
      (const uint32_t*)wgpuBufferGetConstMappedRange(readback, 0, (size_t)size);
  uint32_t mismatches = 0;
  for (uint32_t i = 0; result && i < COUNT; ++i) {
    const uint32_t expected = (input[i] * 3u + i) * 2u + 1u;
    if (result[i] != expected && mismatches++ < 5)
      printf("output[%u] = %u, expected %u\n", i, result[i], expected);
  }
  wgpuBufferUnmap(readback);

  wgpuBindGroupRelease(fillGroup);
  wgpuBindGroupRelease(scaleGroup);
  wgpuComputePipelineRelease(fill);
  wgpuComputePipelineRelease(fill);
  wgpuComputePipelineRelease(scale);
  wgpuBufferRelease(output);
  wgpuBufferRelease(readback);
  wgpuBufferRelease(indirect);
  wgpuQueueRelease(queue);
  wgpuDeviceRelease(device);
  wgpuAdapterRelease(state.adapter);
  wgpuInstanceRelease(instance);

  if (!ok || !result || mismatches != 0 || state.errors != 0) {
    printf("c async pipeline: %u of %d values differ, %d errors\n", mismatches, COUNT,
           state.errors);
    return 1;
  }
  printf("c async pipeline: all %d values match the CPU\n", COUNT);
  return 0;
}
