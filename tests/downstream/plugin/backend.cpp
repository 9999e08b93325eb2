// A backend plugin: one exported C function that trains a small model through tensorgrad's
// runtime and checks the adapter through the shim's C API, both from the shared libraries of the
// install. Writes what it did into `out` (at most `size` bytes) and returns 0 on success.
#include <tensorgrad/tensorgrad.h>
#include <webgpu/webgpu.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Net : tg::Module {
  tg::Linear l1{*this, "l1", 1, 16};
  tg::Linear l2{*this, "l2", 16, 1};
};

tg::Tensor loss(const Net& m, const tg::Inputs& in) {
  const tg::Tensor diff = tg::sub(m.l2.fwd(tg::relu(m.l1.fwd(in["x"]))), in["y"]);
  return tg::mean(tg::mul(diff, diff));
}

// The shim's C API: an instance and an adapter, and the adapter's device name.
std::string adapterName() {
  WGPUInstance instance = wgpuCreateInstance(nullptr);
  if (!instance) return "";
  struct Got {
    WGPUAdapter adapter = nullptr;
  } got;
  WGPURequestAdapterCallbackInfo info = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_WaitAnyOnly;
  info.callback = [](WGPURequestAdapterStatus, WGPUAdapter adapter, WGPUStringView, void* self,
                     void*) { static_cast<Got*>(self)->adapter = adapter; };
  info.userdata1 = &got;
  WGPUFutureWaitInfo wait = {wgpuInstanceRequestAdapter(instance, nullptr, info), 0};
  wgpuInstanceWaitAny(instance, 1, &wait, UINT64_MAX);
  std::string name;
  if (got.adapter) {
    WGPUAdapterInfo adapterInfo = WGPU_ADAPTER_INFO_INIT;
    if (wgpuAdapterGetInfo(got.adapter, &adapterInfo) == WGPUStatus_Success)
      name.assign(adapterInfo.device.data, adapterInfo.device.length);
    wgpuAdapterInfoFreeMembers(adapterInfo);
    wgpuAdapterRelease(got.adapter);
  }
  wgpuInstanceRelease(instance);
  return name;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int tg_backend_train(char* out, size_t size) {
  std::string report = "adapter " + adapterName() + "\n";
  Net model;
  auto train = tg::compile(tg::TrainingSpec<Net>{
      .model = model, .loss = loss, .inputs = {{"x", {{8, 1}}}, {"y", {{8, 1}}}}, .seed = 7});
  std::vector<float> xs, ys;
  for (int i = 0; i < 8; ++i) {
    xs.push_back(static_cast<float>(i) / 8.0f);
    ys.push_back(2.0f * xs.back());
  }
  int status = 0;
  for (int step = 1; step <= 2; ++step) {
    const tg::StepResult r = train.step({{"x", xs}, {"y", ys}}).get();
    if (r.kind != tg::ResultKind::Completed) {
      report += "step " + std::to_string(step) + " failed: " + r.error + "\n";
      status = 1;
      break;
    }
    char line[64];
    std::snprintf(line, sizeof line, "step %d loss %.9g\n", step, static_cast<double>(r.loss));
    report += line;
  }
  std::snprintf(out, size, "%s", report.c_str());
  return status;
}
