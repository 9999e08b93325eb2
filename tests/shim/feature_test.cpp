#include "feature_test.h"

namespace shim_test {

wgpu::Device FeatureTest::DeviceWith(std::vector<wgpu::FeatureName> features, std::string* why,
                                     const wgpu::ChainedStruct* chain) {
  wgpu::DeviceDescriptor desc;
  desc.nextInChain = chain;
  desc.label = "feature device";
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.SetUncapturedErrorCallback(
      [this](const wgpu::Device&, wgpu::ErrorType type, std::string_view m) {
        uncaptured.push_back({type, std::string(m)});
      });
  wgpu::Device result;
  Wait(adapter.RequestDevice(
      &desc, wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::RequestDeviceStatus status, wgpu::Device d, std::string_view m) {
        if (status == wgpu::RequestDeviceStatus::Success)
          result = std::move(d);
        else if (why)
          *why = std::string(m);
      }));
  return result;
}

bool FeatureTest::UseDeviceWith(std::vector<wgpu::FeatureName> features) {
  for (const wgpu::FeatureName f : features) {
    if (!adapter.HasFeature(f)) return false;
  }
  WaitIdle();
  device = DeviceWith(std::move(features));
  if (!device) return false;
  queue = device.GetQueue();
  return true;
}

std::string FeatureTest::ModuleError(const wgpu::Device& d, const std::string& wgsl) {
  wgpu::ShaderSourceWGSL source;
  source.code = wgsl.c_str();
  wgpu::ShaderModuleDescriptor desc;
  desc.nextInChain = &source;
  desc.label = "feature module";
  std::string message;
  d.PushErrorScope(wgpu::ErrorFilter::Validation);
  wgpu::ShaderModule m = d.CreateShaderModule(&desc);
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = m;
  d.CreateComputePipeline(&pd);  // a module's translation errors surface by here
  Wait(d.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                       [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType type, std::string_view msg) {
                         if (type != wgpu::ErrorType::NoError) message = std::string(msg);
                       }));
  return message;
}

std::string FeatureTest::Run(const std::string& wgsl, std::vector<wgpu::Buffer> buffers,
                             uint32_t groups, std::vector<wgpu::ConstantEntry> constants) {
  std::string error;
  const CapturedError caught = Capture([&] {
    wgpu::ShaderSourceWGSL source;
    source.code = wgsl.c_str();
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    wgpu::ComputePipelineDescriptor pd;
    pd.label = "feature kernel";
    pd.compute.module = device.CreateShaderModule(&md);
    pd.compute.constantCount = constants.size();
    pd.compute.constants = constants.data();
    wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pd);
    wgpu::BindGroup group = Group(pipeline, 0, std::move(buffers));
    wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
    wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, group);
    pass.DispatchWorkgroups(groups);
    pass.End();
    Submit(encoder);
  });
  return caught.message;
}

WGPUAdapter RequestAdapterC(WGPUInstance instance) {
  WGPUAdapter adapter = nullptr;
  WGPURequestAdapterCallbackInfo info = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_AllowSpontaneous;
  info.callback = [](WGPURequestAdapterStatus status, WGPUAdapter a, WGPUStringView, void* out,
                     void*) {
    if (status == WGPURequestAdapterStatus_Success) *static_cast<WGPUAdapter*>(out) = a;
  };
  info.userdata1 = &adapter;
  wgpuInstanceRequestAdapter(instance, nullptr, info);
  return adapter;
}

WGPUDevice RequestDeviceC(WGPUAdapter adapter, std::vector<WGPUFeatureName> features) {
  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  WGPUDevice device = nullptr;
  WGPURequestDeviceCallbackInfo info = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_AllowSpontaneous;
  info.callback = [](WGPURequestDeviceStatus status, WGPUDevice d, WGPUStringView, void* out,
                     void*) {
    if (status == WGPURequestDeviceStatus_Success) *static_cast<WGPUDevice*>(out) = d;
  };
  info.userdata1 = &device;
  wgpuAdapterRequestDevice(adapter, &desc, info);
  return device;
}

}  // namespace shim_test
