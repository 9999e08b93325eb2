// A fixture for tests of the optional features (shader-f16, subgroups): devices that request
// them, and WGSL kernels run on such a device.
#pragma once

#include <webgpu/webgpu.h>

#include <string>
#include <vector>

#include "shim_test.h"

namespace shim_test {

class FeatureTest : public ShimTest {
 protected:
  // A device with `features` (and `chain` in its descriptor); null (and `why` set) when the
  // request fails.
  wgpu::Device DeviceWith(std::vector<wgpu::FeatureName> features, std::string* why = nullptr,
                          const wgpu::ChainedStruct* chain = nullptr);
  // Makes the fixture's device (what MakeBuffer, Upload and Read use) one with `features`; false
  // (the test skipped) when the adapter lacks one.
  bool UseDeviceWith(std::vector<wgpu::FeatureName> features);
  // The validation error creating a WGSL module and a pipeline from it on `d` gives ("" if none).
  std::string ModuleError(const wgpu::Device& d, const std::string& wgsl);
  // Runs the WGSL kernel on the fixture's device: `buffers` bound at @group(0) @binding(0..),
  // `groups` workgroups in x, pipeline constants `constants`. Returns the validation error ("" if
  // none); the work is submitted.
  std::string Run(const std::string& wgsl, std::vector<wgpu::Buffer> buffers, uint32_t groups,
                  std::vector<wgpu::ConstantEntry> constants = {});
};

// Through the C API: `instance`'s default adapter, and a device of `adapter` with `features`;
// null when the request fails.
WGPUAdapter RequestAdapterC(WGPUInstance instance);
WGPUDevice RequestDeviceC(WGPUAdapter adapter, std::vector<WGPUFeatureName> features);

}  // namespace shim_test
