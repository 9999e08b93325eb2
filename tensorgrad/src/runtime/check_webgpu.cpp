// checkWebGPU(): can this process get a device, and if not, why (upstream's two reasons) and what
// to do about it.
#include "gpu_worker.h"

namespace tg {

std::string_view webGPUFailureReasonName(WebGPUFailureReason reason) {
  return reason == WebGPUFailureReason::NoWebGPU ? "no-webgpu" : "no-adapter";
}

WebGPUSupport checkWebGPU(const RuntimeOptions& options) {
  WebGPUSupport s;
  // Upstream's probe first: is there WebGPU at all (here: a Vulkan instance), and does it hand out
  // an adapter. The shim answers Error when Vulkan itself is missing, Unavailable when no adapter
  // matches.
  wgpu::Instance instance;
  try {
    instance = detail::createInstance(options);
  } catch (const CompileError& e) {
    s.reason = WebGPUFailureReason::NoAdapter;
    s.message = e.what();
    return s;
  }
  wgpu::RequestAdapterOptions ao;
  ao.adapterName = options.device;
  wgpu::RequestAdapterStatus status = wgpu::RequestAdapterStatus::Error;
  wgpu::Adapter adapter;
  std::string why;
  instance.WaitAny(instance.RequestAdapter(&ao, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestAdapterStatus st, wgpu::Adapter a,
                                               std::string_view message) {
                                             status = st;
                                             adapter = std::move(a);
                                             why = message;
                                           }),
                   UINT64_MAX);
  if (!adapter) {
    s.reason = status == wgpu::RequestAdapterStatus::Unavailable ? WebGPUFailureReason::NoAdapter
                                                                  : WebGPUFailureReason::NoWebGPU;
    s.message = *s.reason == WebGPUFailureReason::NoWebGPU
                    ? "tensorgrad: no WebGPU (Vulkan is unavailable). " + why
                    : "tensorgrad: no WebGPU adapter. " + why;
    return s;
  }
  // Then what compile does: open the device. An adapter whose device will not open is, to the
  // user, no usable adapter.
  try {
    auto gpu = detail::openGpu(options);
    s.ok = true;
    s.adapter = gpu->adapterName;
    s.cpu = gpu->cpuAdapter;
    s.unpooledBudgetBytes = s.cpu ? 0 : unpooledBudgetBytes(gpu->limits.maxBufferSize);
  } catch (const std::exception& e) {
    s.reason = WebGPUFailureReason::NoAdapter;
    s.message = e.what();
  }
  return s;
}

}  // namespace tg
