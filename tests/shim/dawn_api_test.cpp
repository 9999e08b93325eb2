// The API's Dawn shapes: StringView and its conversions, designated initializers through Init,
// count + pointer arrays (a null pointer behind a count is a validation error naming both
// fields), typed-userdata callbacks, Status returns, instance features and limits, the limits of
// what a compute-only implementation lacks, and the print header.
#include <sstream>

#include "shim_test.h"

namespace shim_test {
namespace {

class DawnApi : public ShimTest {
 protected:
  // Expects a validation error whose message contains every fragment.
  void ExpectError(const std::function<void()>& fn,
                   std::initializer_list<std::string_view> fragments) {
    const CapturedError e = Capture(fn);
    EXPECT_EQ(e.type, wgpu::ErrorType::Validation) << e.message;
    for (auto f : fragments)
      EXPECT_NE(e.message.find(f), std::string::npos)
          << "missing \"" << f << "\" in: " << e.message;
  }
};

TEST(StringViewTest, ConversionsFollowDawn) {
  const wgpu::StringView undefined;
  EXPECT_TRUE(undefined.IsUndefined());
  EXPECT_EQ(std::string_view(undefined), "");
  const wgpu::StringView fromNull = nullptr;
  EXPECT_TRUE(fromNull.IsUndefined());

  const wgpu::StringView terminated = "hello";  // length kStrlen: up to the NUL
  EXPECT_EQ(terminated.length, wgpu::kStrlen);
  EXPECT_EQ(std::string_view(terminated), "hello");

  const char text[] = "hello world";
  const wgpu::StringView sized(text, 5);
  EXPECT_EQ(std::string_view(sized), "hello");
  EXPECT_EQ(std::string(sized), "hello");  // the explicit conversion to string types

  const std::string owned = "owned";
  const wgpu::StringView borrowed = owned;
  EXPECT_EQ(borrowed.data, owned.data());
  EXPECT_EQ(std::string_view(borrowed), "owned");

  // Empty but defined (Dawn's {nullptr, 0} and {"", 0}) differs from undefined.
  const wgpu::StringView empty(nullptr, 0);
  EXPECT_FALSE(empty.IsUndefined());
  EXPECT_EQ(std::string_view(empty), "");
  // A null pointer with a length is malformed; it reads as empty instead of through null.
  EXPECT_EQ(std::string_view(wgpu::StringView(nullptr, 5)), "");

  std::ostringstream out;
  out << sized << " " << wgpu::ErrorType::Validation << " " << wgpu::MapAsyncStatus::Aborted << " "
      << (wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst) << " "
      << static_cast<wgpu::ErrorType>(9);
  EXPECT_EQ(out.str(),
            "hello ErrorType::Validation MapAsyncStatus::Aborted BufferUsage::(MapRead|CopyDst) "
            "ErrorType::0x9");
}

TEST(InstanceTest, FeaturesAndLimitsAsCurrentDawnSpellsThem) {
  static const auto kTimedWaitAny = wgpu::InstanceFeatureName::TimedWaitAny;
  wgpu::InstanceDescriptor withFeature{.requiredFeatureCount = 1,
                                       .requiredFeatures = &kTimedWaitAny};
  EXPECT_TRUE(wgpu::CreateInstance(&withFeature));
  EXPECT_TRUE(wgpu::HasInstanceFeature(wgpu::InstanceFeatureName::TimedWaitAny));

  wgpu::InstanceLimits limits;
  ASSERT_EQ(wgpu::GetInstanceLimits(&limits), wgpu::Status::Success);
  EXPECT_GE(limits.timedWaitAnyMaxCount, 1u);
  wgpu::InstanceLimits tooMany{.timedWaitAnyMaxCount = limits.timedWaitAnyMaxCount + 1};
  wgpu::InstanceDescriptor overLimit{.requiredLimits = &tooMany};
  EXPECT_FALSE(wgpu::CreateInstance(&overLimit));

  // As Dawn: an instance that asks for what does not exist, or names no array, is not created.
  const auto unknown = static_cast<wgpu::InstanceFeatureName>(99);
  wgpu::InstanceDescriptor unknownFeature{.requiredFeatureCount = 1, .requiredFeatures = &unknown};
  EXPECT_FALSE(wgpu::CreateInstance(&unknownFeature));
  wgpu::InstanceDescriptor nullFeatures{.requiredFeatureCount = 2, .requiredFeatures = nullptr};
  EXPECT_FALSE(wgpu::CreateInstance(&nullFeatures));
}

TEST_F(DawnApi, StatusReturnsAndOutStructs) {
  wgpu::Limits adapterLimits, deviceLimits;
  EXPECT_EQ(adapter.GetLimits(&adapterLimits), wgpu::Status::Success);
  EXPECT_EQ(device.GetLimits(&deviceLimits), wgpu::Status::Success);
  EXPECT_EQ(device.GetLimits(nullptr), wgpu::Status::Error);
  // The render and texture limits a compute-only implementation never uses are WebGPU's
  // defaults, as on Dawn; the compute feature it lacks (immediates) is 0.
  EXPECT_EQ(adapterLimits.maxTextureDimension2D, 8192u);
  EXPECT_EQ(deviceLimits.maxVertexBuffers, 8u);
  EXPECT_EQ(deviceLimits.maxColorAttachments, 8u);
  EXPECT_EQ(deviceLimits.maxDynamicStorageBuffersPerPipelineLayout, 4u);
  EXPECT_EQ(deviceLimits.maxImmediateSize, 0u);
  EXPECT_GE(deviceLimits.maxStorageBuffersPerShaderStage, 8u);

  // AdapterInfo's strings stay valid after the adapter and the device are gone.
  wgpu::AdapterInfo info;
  {
    wgpu::Device d = MakeDevice();
    ASSERT_EQ(d.GetAdapterInfo(&info), wgpu::Status::Success);
  }
  wgpu::AdapterInfo fromAdapter;
  ASSERT_EQ(adapter.GetInfo(&fromAdapter), wgpu::Status::Success);
  adapter = nullptr;
  EXPECT_EQ(adapter, nullptr);
  EXPECT_EQ(std::string_view(info.device), std::string_view(fromAdapter.device));
  EXPECT_FALSE(std::string_view(info.description).empty());
  EXPECT_EQ(info.backendType, wgpu::BackendType::Vulkan);

  wgpu::SupportedFeatures features;
  device.GetFeatures(&features);
  EXPECT_EQ(features.featureCount, 0u);
}

// A program that writes WebGPU's default limits out (or copies the adapter's) into
// requiredLimits gets its device, as on Dawn, even for the render limits it never uses.
TEST_F(DawnApi, RequestingWebGpuDefaultsOrTheAdaptersLimitsSucceeds) {
  wgpu::Limits defaults;
  defaults.maxTextureDimension1D = defaults.maxTextureDimension2D = 8192;
  defaults.maxTextureDimension3D = 2048;
  defaults.maxTextureArrayLayers = 256;
  defaults.maxSampledTexturesPerShaderStage = defaults.maxSamplersPerShaderStage = 16;
  defaults.maxVertexBuffers = 8;
  defaults.maxColorAttachments = 8;
  defaults.maxColorAttachmentBytesPerSample = 32;
  defaults.maxStorageBuffersPerShaderStage = 8;
  defaults.maxComputeWorkgroupStorageSize = 16384;
  wgpu::Limits adapterLimits;
  ASSERT_EQ(adapter.GetLimits(&adapterLimits), wgpu::Status::Success);
  for (const wgpu::Limits* required : {&defaults, &adapterLimits}) {
    wgpu::DeviceDescriptor desc{{.requiredLimits = required}};
    wgpu::Device got;
    Wait(adapter.RequestDevice(
        &desc, wgpu::CallbackMode::AllowProcessEvents,
        [&](wgpu::RequestDeviceStatus status, wgpu::Device d, wgpu::StringView m) {
          EXPECT_EQ(status, wgpu::RequestDeviceStatus::Success) << std::string_view(m);
          got = std::move(d);
        }));
    ASSERT_TRUE(got);
    wgpu::Limits deviceLimits;
    ASSERT_EQ(got.GetLimits(&deviceLimits), wgpu::Status::Success);
    EXPECT_EQ(deviceLimits.maxTextureDimension2D, 8192u);
    EXPECT_EQ(deviceLimits.maxStorageBuffersPerShaderStage, required->maxStorageBuffersPerShaderStage);
  }
}

TEST_F(DawnApi, RequestingALimitOfAMissingFeatureFails) {
  wgpu::Limits limits;
  limits.maxTextureDimension2D = 16384;
  wgpu::DeviceDescriptor desc{{.label = "wants textures", .requiredLimits = &limits}};
  std::string message;
  Wait(adapter.RequestDevice(
      &desc, wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::RequestDeviceStatus status, wgpu::Device, wgpu::StringView m) {
        EXPECT_EQ(status, wgpu::RequestDeviceStatus::Error);
        message = std::string(m);
      }));
  EXPECT_NE(message.find("maxTextureDimension2D"), std::string::npos) << message;
}

TEST_F(DawnApi, NullRequiredFeaturesFailsRequestDevice) {
  wgpu::DeviceDescriptor desc;
  desc.requiredFeatureCount = 1;
  std::string message;
  Wait(adapter.RequestDevice(
      &desc, wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::RequestDeviceStatus status, wgpu::Device d, wgpu::StringView m) {
        EXPECT_EQ(status, wgpu::RequestDeviceStatus::Error);
        EXPECT_FALSE(d);
        message = std::string(m);
      }));
  EXPECT_NE(message.find("requiredFeatures is null but requiredFeatureCount is 1"),
            std::string::npos)
      << message;
}

TEST_F(DawnApi, NullArraysBehindCountsAreValidationErrors) {
  wgpu::BindGroupLayoutDescriptor ld{.label = "no entries", .entryCount = 2, .entries = nullptr};
  ExpectError([&] { device.CreateBindGroupLayout(&ld); },
              {"\"no entries\"", "entries is null but entryCount is 2"});

  wgpu::PipelineLayoutDescriptor pl{.label = "no layouts", .bindGroupLayoutCount = 3};
  ExpectError([&] { device.CreatePipelineLayout(&pl); },
              {"\"no layouts\"", "bindGroupLayouts is null but bindGroupLayoutCount is 3"});

  const wgpu::ComputePipeline pipeline = Pipeline(Kernel("uint", "b[i] = a[i];"), "copy");
  wgpu::BindGroupDescriptor bg{
      .label = "no bindings", .layout = pipeline.GetBindGroupLayout(0), .entryCount = 2};
  ExpectError([&] { device.CreateBindGroup(&bg); },
              {"\"no bindings\"", "entries is null but entryCount is 2"});

  wgpu::ComputePipelineDescriptor pd{
      .label = "no constants",
      .compute = {.module = Module(Kernel("uint", "b[i] = a[i];")), .constantCount = 1}};
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"no constants\"", "compute.constants is null but compute.constantCount is 1"});

  ExpectError([&] { queue.Submit(2, nullptr); },
              {"commands is null but commandCount is 2", "[Queue", "Submit"});
}

TEST_F(DawnApi, LayoutFieldsOfFeaturesItLacksAreValidated) {
  wgpu::PipelineLayoutDescriptor pl{.label = "immediates", .immediateSize = 16};
  ExpectError([&] { device.CreatePipelineLayout(&pl); }, {"\"immediates\"", "immediateSize (16)"});

  // Dawn's default for an entry's buffer is "not used": an entry must say what it binds.
  const wgpu::BindGroupLayoutEntry unused{.binding = 0, .visibility = wgpu::ShaderStage::Compute};
  wgpu::BindGroupLayoutDescriptor ld{.label = "unused", .entryCount = 1, .entries = &unused};
  ExpectError([&] { device.CreateBindGroupLayout(&ld); }, {"\"unused\"", "no binding type"});

  const wgpu::BindGroupLayoutEntry array{.binding = 0,
                                         .visibility = wgpu::ShaderStage::Compute,
                                         .bindingArraySize = 4,
                                         .buffer = {.type = wgpu::BufferBindingType::Storage}};
  wgpu::BindGroupLayoutDescriptor arrayDesc{.label = "array", .entryCount = 1, .entries = &array};
  ExpectError([&] { device.CreateBindGroupLayout(&arrayDesc); },
              {"\"array\"", "bindingArraySize 4"});
}

// The descriptor's arrays are only read during the call: the objects keep their own copies.
TEST_F(DawnApi, ObjectsKeepNothingOfTheCallersArrays) {
  std::vector<wgpu::BindGroupLayoutEntry> entries = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}},
      {.binding = 1,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}}};
  std::string label = "explicit";
  wgpu::BindGroupLayoutDescriptor ld{
      .label = label, .entryCount = entries.size(), .entries = entries.data()};
  const wgpu::BindGroupLayout layout = device.CreateBindGroupLayout(&ld);
  entries.assign(2, wgpu::BindGroupLayoutEntry{});  // scribbled over after the call
  label.assign("xxxxxxxx");
  std::vector<wgpu::BindGroupLayout> layouts = {layout};
  wgpu::PipelineLayoutDescriptor pl{.bindGroupLayoutCount = 1, .bindGroupLayouts = layouts.data()};
  const wgpu::PipelineLayout pipelineLayout = device.CreatePipelineLayout(&pl);
  layouts.clear();
  wgpu::ComputePipelineDescriptor pd{
      .layout = pipelineLayout, .compute = {.module = Module(Kernel("uint", "b[i] = a[i] * 2u;"))}};
  const wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pd);
  const wgpu::Buffer in = Upload(std::vector<uint32_t>{1, 2, 3, 4}, wgpu::BufferUsage::Storage);
  const wgpu::Buffer out = MakeBuffer(16, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  std::vector<wgpu::BindGroupEntry> bindings = {{.binding = 0, .buffer = in},
                                                {.binding = 1, .buffer = out}};
  wgpu::BindGroupDescriptor bg{.layout = layout, .entryCount = 2, .entries = bindings.data()};
  const wgpu::BindGroup group = device.CreateBindGroup(&bg);
  bindings.clear();
  DispatchOne(pipeline, group);
  EXPECT_EQ(Read<uint32_t>(out, 4), (std::vector<uint32_t>{2, 4, 6, 8}));
}

// Dawn's second callback form: a function (or non-capturing lambda) and a typed userdata.
TEST_F(DawnApi, CallbacksWithTypedUserdata) {
  struct Seen {
    int calls = 0;
    wgpu::ErrorType type = wgpu::ErrorType::Unknown;
  } seen;
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  Wait(device.PopErrorScope(
      wgpu::CallbackMode::AllowProcessEvents,
      [](wgpu::PopErrorScopeStatus, wgpu::ErrorType type, wgpu::StringView, Seen* s) {
        ++s->calls;
        s->type = type;
      },
      &seen));
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.type, wgpu::ErrorType::NoError);

  Wait(queue.OnSubmittedWorkDone(
      wgpu::CallbackMode::WaitAnyOnly,
      [](wgpu::QueueWorkDoneStatus status, wgpu::StringView, Seen* s) {
        if (status == wgpu::QueueWorkDoneStatus::Success) ++s->calls;
      },
      &seen));
  EXPECT_EQ(seen.calls, 2);
}

// Chained structs and the device descriptor take designated initializers through Init.
TEST_F(DawnApi, InitFormsOfChainedStructsAndTheDeviceDescriptor) {
  const char* code = "@compute @workgroup_size(1) fn main() {}";
  wgpu::ShaderSourceWGSL wgsl{{.code = code}};
  EXPECT_EQ(wgsl.sType, wgpu::SType::ShaderSourceWGSL);
  wgpu::ShaderModuleDescriptor md{.nextInChain = &wgsl, .label = "empty kernel"};
  const CapturedError e = Capture([&] { device.CreateShaderModule(&md); });
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;

  const wgpu::ShaderSourceSPIRV spirv{{.codeSize = 0}};
  EXPECT_EQ(spirv.sType, wgpu::SType::ShaderSourceSPIRV);

  wgpu::DeviceDescriptor desc{{.label = "init form", .defaultQueue = {.label = "init queue"}}};
  wgpu::Device d;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                             [&](wgpu::RequestDeviceStatus, wgpu::Device result, wgpu::StringView) {
                               d = std::move(result);
                             }));
  ASSERT_NE(d, nullptr);
  // The queue's label from the Init form names it in messages.
  const wgpu::BufferDescriptor bd{.usage = wgpu::BufferUsage::CopyDst, .size = 16};
  const wgpu::Buffer b = d.CreateBuffer(&bd);
  std::string message;
  d.PushErrorScope(wgpu::ErrorFilter::Validation);
  const uint32_t value = 1;
  d.GetQueue().WriteBuffer(b, 2, &value, 4);
  Wait(d.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                       [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType, wgpu::StringView m) {
                         message = std::string(m);
                       }));
  EXPECT_NE(message.find("[Queue \"init queue\"]"), std::string::npos) << message;
}

}  // namespace
}  // namespace shim_test
