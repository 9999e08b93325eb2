// Errors through the standard webgpu.h, as a C program meets them: an invalid WGSL module in a
// validation scope and its messages from wgpuShaderModuleGetCompilationInfo, nested scopes of
// different filters, an unknown chained struct, an error with no scope (the uncaptured-error
// callback, which names the device), popping an empty stack, and the device's loss when its
// last reference is released (the lost callback then sees a null device). Prints "FAILED" for
// each check that does not hold.
#include <webgpu/webgpu.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, what)           \
  do {                              \
    if (!(cond)) {                  \
      printf("FAILED: %s\n", what); \
      ++failures;                   \
    }                               \
  } while (0)

static WGPUStringView sv(const char* s) {
  WGPUStringView v = WGPU_STRING_VIEW_INIT;
  v.data = s;
  return v;
}

struct Globals {
  WGPUAdapter adapter;
  WGPUDevice device;
  int uncaptured;
  WGPUErrorType uncapturedType;
  int uncapturedNamedDevice;
  int lost;
  WGPUDeviceLostReason lostReason;
  int lostDeviceWasNull;
};
static struct Globals g;

// What a popped scope held.
struct Popped {
  int done;
  WGPUPopErrorScopeStatus status;
  WGPUErrorType type;
  char message[1024];
};

static void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                       void* userdata1, void* userdata2) {
  (void)message;
  (void)userdata1;
  (void)userdata2;
  if (status == WGPURequestAdapterStatus_Success) g.adapter = adapter;
}

static void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                      void* userdata1, void* userdata2) {
  (void)message;
  (void)userdata1;
  (void)userdata2;
  if (status == WGPURequestDeviceStatus_Success) g.device = device;
}

static void on_uncaptured(WGPUDevice const* device, WGPUErrorType type, WGPUStringView message,
                          void* userdata1, void* userdata2) {
  (void)message;
  (void)userdata2;
  ++g.uncaptured;
  g.uncapturedType = type;
  g.uncapturedNamedDevice = device && *device == g.device && userdata1 == &g;
}

static void on_lost(WGPUDevice const* device, WGPUDeviceLostReason reason, WGPUStringView message,
                    void* userdata1, void* userdata2) {
  (void)message;
  (void)userdata1;
  (void)userdata2;
  ++g.lost;
  g.lostReason = reason;
  g.lostDeviceWasNull = device && *device == NULL;
}

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                   void* userdata1, void* userdata2) {
  struct Popped* p = (struct Popped*)userdata1;
  (void)userdata2;
  p->done = 1;
  p->status = status;
  p->type = type;
  const size_t n =
      message.data ? (message.length == WGPU_STRLEN ? strlen(message.data) : message.length) : 0;
  const size_t keep = n < sizeof p->message - 1 ? n : sizeof p->message - 1;
  if (keep) memcpy(p->message, message.data, keep);
  p->message[keep] = '\0';
}

static struct Popped pop(WGPUInstance instance) {
  struct Popped p;
  memset(&p, 0, sizeof p);
  WGPUPopErrorScopeCallbackInfo info = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_AllowProcessEvents;
  info.callback = on_pop;
  info.userdata1 = &p;
  wgpuDevicePopErrorScope(g.device, info);
  for (int i = 0; !p.done && i < 100000; ++i) wgpuInstanceProcessEvents(instance);
  return p;
}

struct Compilation {
  int done;
  size_t errors;
  uint64_t firstLine;
  uint64_t firstColumn;
};

static void on_compilation(WGPUCompilationInfoRequestStatus status,
                           struct WGPUCompilationInfo const* info, void* userdata1,
                           void* userdata2) {
  struct Compilation* c = (struct Compilation*)userdata1;
  (void)userdata2;
  c->done = status == WGPUCompilationInfoRequestStatus_Success;
  for (size_t i = 0; info && i < info->messageCount; ++i) {
    if (info->messages[i].type != WGPUCompilationMessageType_Error) continue;
    if (c->errors++ == 0) {
      c->firstLine = info->messages[i].lineNum;
      c->firstColumn = info->messages[i].linePos;
      printf("compilation error %llu:%llu: %.*s\n", (unsigned long long)c->firstLine,
             (unsigned long long)c->firstColumn,
             (int)(info->messages[i].message.length == WGPU_STRLEN
                       ? strlen(info->messages[i].message.data)
                       : info->messages[i].message.length),
             info->messages[i].message.data);
    }
  }
}

int main(void) {
  WGPUInstance instance = wgpuCreateInstance(NULL);
  WGPURequestAdapterCallbackInfo adapterInfo = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  adapterInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  adapterInfo.callback = on_adapter;
  wgpuInstanceRequestAdapter(instance, NULL, adapterInfo);
  wgpuInstanceProcessEvents(instance);
  if (!g.adapter) {
    printf("no adapter\n");
    return 1;
  }
  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.label = sv("errors");
  desc.uncapturedErrorCallbackInfo.callback = on_uncaptured;
  desc.uncapturedErrorCallbackInfo.userdata1 = &g;
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  desc.deviceLostCallbackInfo.callback = on_lost;
  WGPURequestDeviceCallbackInfo deviceInfo = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  deviceInfo.mode = WGPUCallbackMode_AllowProcessEvents;
  deviceInfo.callback = on_device;
  wgpuAdapterRequestDevice(g.adapter, &desc, deviceInfo);
  for (int i = 0; !g.device && i < 1000; ++i) wgpuInstanceProcessEvents(instance);
  if (!g.device) {
    printf("no device\n");
    return 1;
  }

  // 1. Invalid WGSL (an f32 assigned to a u32 on line 4) inside a validation scope.
  static const char kBadShader[] =
      "@group(0) @binding(0) var<storage, read_write> data : array<u32>;\n"
      "@compute @workgroup_size(1)\n"
      "fn main() {\n"
      "  data[0] = 1.5;\n"
      "}\n";
  wgpuDevicePushErrorScope(g.device, WGPUErrorFilter_Validation);
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = sv(kBadShader);
  WGPUShaderModuleDescriptor moduleDesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  moduleDesc.nextInChain = &wgsl.chain;
  moduleDesc.label = sv("bad shader");
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(g.device, &moduleDesc);
  struct Popped p = pop(instance);
  CHECK(p.done && p.status == WGPUPopErrorScopeStatus_Success, "the scope pops");
  CHECK(p.type == WGPUErrorType_Validation, "the invalid module is a validation error");
  CHECK(strstr(p.message, "bad shader") != NULL, "the error names the module by its label");

  struct Compilation c;
  memset(&c, 0, sizeof c);
  WGPUCompilationInfoCallbackInfo compilationInfo = WGPU_COMPILATION_INFO_CALLBACK_INFO_INIT;
  compilationInfo.mode = WGPUCallbackMode_WaitAnyOnly;
  compilationInfo.callback = on_compilation;
  compilationInfo.userdata1 = &c;
  WGPUFutureWaitInfo wait = WGPU_FUTURE_WAIT_INFO_INIT;
  wait.future = wgpuShaderModuleGetCompilationInfo(module, compilationInfo);
  CHECK(wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX) == WGPUWaitStatus_Success &&
            wait.completed,
        "GetCompilationInfo completes through WaitAny");
  CHECK(c.done && c.errors >= 1, "the compilation info has an error message");
  CHECK(c.firstLine == 4, "the error is on line 4");

  // 2. A pipeline from the invalid module: a validation error, caught by the inner validation
  // scope, not by the outer out-of-memory one.
  wgpuDevicePushErrorScope(g.device, WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(g.device, WGPUErrorFilter_Validation);
  WGPUComputePipelineDescriptor pipelineDesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pipelineDesc.compute.module = module;
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(g.device, &pipelineDesc);
  struct Popped inner = pop(instance);
  struct Popped outer = pop(instance);
  CHECK(inner.type == WGPUErrorType_Validation,
        "the inner validation scope catches the pipeline error");
  CHECK(outer.status == WGPUPopErrorScopeStatus_Success && outer.type == WGPUErrorType_NoError,
        "the outer out-of-memory scope catches nothing");

  // 3. A struct of an sType the implementation does not know, chained to a buffer descriptor.
  wgpuDevicePushErrorScope(g.device, WGPUErrorFilter_Validation);
  WGPUChainedStruct unknown;
  unknown.next = NULL;
  unknown.sType = (WGPUSType)0x7777;
  WGPUBufferDescriptor bufferDesc = WGPU_BUFFER_DESCRIPTOR_INIT;
  bufferDesc.nextInChain = &unknown;
  bufferDesc.usage = WGPUBufferUsage_Storage;
  bufferDesc.size = 256;
  WGPUBuffer chained = wgpuDeviceCreateBuffer(g.device, &bufferDesc);
  p = pop(instance);
  CHECK(chained != NULL, "an error buffer is still returned");
  CHECK(p.type == WGPUErrorType_Validation && strstr(p.message, "0x00007777") != NULL,
        "the unknown sType is a validation error that names it");

  // 4. No scope: a buffer that is both MapRead and Storage goes to the uncaptured-error
  // callback, which receives the device and its userdata.
  bufferDesc.nextInChain = NULL;
  bufferDesc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Storage;
  WGPUBuffer invalid = wgpuDeviceCreateBuffer(g.device, &bufferDesc);
  CHECK(g.uncaptured == 1 && g.uncapturedType == WGPUErrorType_Validation,
        "the unscoped error reaches the uncaptured-error callback");
  CHECK(g.uncapturedNamedDevice, "the uncaptured-error callback gets the device and userdata1");

  // 5. Popping an empty stack fails.
  p = pop(instance);
  CHECK(p.done && p.status == WGPUPopErrorScopeStatus_Error, "popping an empty stack is an error");

  wgpuBufferRelease(invalid);
  wgpuBufferRelease(chained);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);

  // 6. Releasing the last reference destroys the device; the lost callback (spontaneous) sees a
  // null device and the Destroyed reason.
  wgpuDeviceAddRef(g.device);
  wgpuDeviceRelease(g.device);
  CHECK(g.lost == 0, "a release that is not the last does not lose the device");
  wgpuDeviceRelease(g.device);
  CHECK(g.lost == 1 && g.lostReason == WGPUDeviceLostReason_Destroyed,
        "releasing the last reference destroys the device");
  CHECK(g.lostDeviceWasNull, "the lost callback of a released device sees a null device");
  CHECK(g.uncaptured == 1, "no other error went uncaptured");

  wgpuAdapterRelease(g.adapter);
  wgpuInstanceRelease(instance);
  if (failures != 0) {
    printf("c error scopes: %d checks failed\n", failures);
    return 1;
  }
  printf("c error scopes: every error arrived where WebGPU routes it\n");
  return 0;
}
