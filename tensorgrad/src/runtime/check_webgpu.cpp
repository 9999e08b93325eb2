// checkWebGPU(): can this process get a device, and if not, what to do about it.
#include "gpu_worker.h"

namespace tg {

WebGPUSupport checkWebGPU(const RuntimeOptions& options) {
  WebGPUSupport s;
  try {
    auto gpu = detail::openGpu(options);
    s.ok = true;
    s.adapter = gpu->adapterName;
    s.cpu = gpu->cpuAdapter;
  } catch (const std::exception& e) {
    s.message = e.what();
  }
  return s;
}

}  // namespace tg
