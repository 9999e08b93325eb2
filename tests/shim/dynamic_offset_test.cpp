// Dynamic buffer offsets (BufferBindingLayout::hasDynamicOffset): SetBindGroup's offsets move
// each dynamic binding's range per dispatch. Results are checked against the CPU; each
// validation case breaks one rule of WebGPU's setBindGroup and asserts the message names the
// bind group index, the binding, the offset and the limit.
#include <array>

#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferBindingType;
using wgpu::BufferUsage;

// dst[i] = src[i] * k + i, every binding dynamic. src and dst are two read_write bindings of one
// buffer: WebGPU allows that (unlike read-only + writable) when their ranges do not overlap.
constexpr const char* kKernel =
    "#version 450\nlayout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0, std140) uniform Params { uint k; };\n"
    "layout(set = 0, binding = 1, std430) buffer Src { uint src[4]; };\n"
    "layout(set = 0, binding = 2, std430) buffer Dst { uint dst[4]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; dst[i] = src[i] * k + i; }\n";

constexpr uint64_t kRegion = 256;  // WebGPU's default offset alignments

class DynamicOffsets : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    // Entries out of binding order: the offsets still follow binding numbers.
    layout = Layout("dynamic layout", {{2, BufferBindingType::Storage, true},
                                       {0, BufferBindingType::Uniform, true},
                                       {1, BufferBindingType::Storage, true}});
    wgpu::PipelineLayoutDescriptor pl{.bindGroupLayoutCount = 1, .bindGroupLayouts = &layout};
    wgpu::ComputePipelineDescriptor pd;
    pd.label = "dynamic kernel";
    pd.layout = device.CreatePipelineLayout(&pl);
    pd.compute.module = Module(kKernel);
    pipeline = device.CreateComputePipeline(&pd);
    params = MakeBuffer(3 * kRegion, BufferUsage::Uniform | BufferUsage::CopyDst, "params");
    data = MakeBuffer(4 * kRegion,
                      BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst, "data");
    // src and dst are the same 16 bytes of `data` until the offsets move them apart.
    group = Group(layout, "dynamic group", {{0, params, 0}, {1, data, 0}, {2, data, 0}});
  }

  struct Entry {
    uint32_t binding;
    BufferBindingType type;
    bool dynamic;
  };
  wgpu::BindGroupLayout Layout(const char* label, std::vector<Entry> entries) {
    std::vector<wgpu::BindGroupLayoutEntry> e;
    for (const auto& x : entries)
      e.push_back({.binding = x.binding,
                   .visibility = wgpu::ShaderStage::Compute,
                   .buffer = {.type = x.type, .hasDynamicOffset = x.dynamic}});
    wgpu::BindGroupLayoutDescriptor d{.label = label, .entryCount = e.size(), .entries = e.data()};
    return device.CreateBindGroupLayout(&d);
  }
  struct Bound {
    uint32_t binding;
    wgpu::Buffer buffer;
    uint64_t offset;
  };
  wgpu::BindGroup Group(const wgpu::BindGroupLayout& l, const char* label,
                        std::vector<Bound> bound) {
    std::vector<wgpu::BindGroupEntry> e;
    for (const auto& b : bound)
      e.push_back({.binding = b.binding, .buffer = b.buffer, .offset = b.offset, .size = 16});
    wgpu::BindGroupDescriptor d{
        .label = label, .layout = l, .entryCount = e.size(), .entries = e.data()};
    return device.CreateBindGroup(&d);
  }
  // Expects exactly a validation error whose message contains every fragment.
  void ExpectError(const std::function<void()>& fn,
                   std::initializer_list<std::string_view> fragments) {
    auto e = Capture(fn);
    EXPECT_EQ(e.type, wgpu::ErrorType::Validation) << e.message;
    for (auto f : fragments)
      EXPECT_NE(e.message.find(f), std::string::npos)
          << "missing \"" << f << "\" in: " << e.message;
  }
  // One dispatch of the kernel with `offsets` (params, src, dst), encoded and finished.
  void Encode(const wgpu::BindGroup& g, std::vector<uint32_t> offsets) {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, g, offsets.size(), offsets.data());
    pass.DispatchWorkgroups(1);
    pass.End();
    encoder.Finish();
  }

  wgpu::BindGroupLayout layout;
  wgpu::ComputePipeline pipeline;
  wgpu::Buffer params, data;
  wgpu::BindGroup group;
};

TEST_F(DynamicOffsets, EachDispatchSeesTheRangesItsOffsetsSelect) {
  // Three dispatches chained through `data`: region j+1 = region j * k[j] + i, each reading
  // what the one before wrote (a barrier between them); the last one is indirect.
  const std::array<uint32_t, 3> k = {2, 3, 5};
  for (uint32_t j = 0; j < 3; ++j) queue.WriteBuffer(params, j * kRegion, &k[j], 4);
  std::vector<uint32_t> expected(4 * kRegion / 4, 0);
  for (uint32_t i = 0; i < 4; ++i) expected[i] = 10 + i;
  queue.WriteBuffer(data, 0, expected.data(), expected.size() * 4);
  for (uint32_t j = 0; j < 3; ++j)
    for (uint32_t i = 0; i < 4; ++i)
      expected[(j + 1) * kRegion / 4 + i] = expected[j * kRegion / 4 + i] * k[j] + i;
  const std::vector<uint32_t> one = {1, 1, 1};
  auto args = Upload(one, BufferUsage::Indirect, "args");

  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  for (uint32_t j = 0; j < 3; ++j) {
    const uint32_t offsets[] = {uint32_t(j * kRegion), uint32_t(j * kRegion),
                                uint32_t((j + 1) * kRegion)};
    pass.SetBindGroup(0, group, 3, offsets);  // the same group: only the offsets change
    if (j < 2)
      pass.DispatchWorkgroups(1);
    else
      pass.DispatchWorkgroupsIndirect(args, 0);
  }
  pass.End();
  Submit(encoder);
  EXPECT_EQ(Read<uint32_t>(data, expected.size()), expected);
}

TEST_F(DynamicOffsets, AliasingIsJudgedAtTheRangeTheOffsetsBind) {
  // src and dst are bound at the same 16 bytes; offsets 0 and 256 part them, equal ones don't.
  auto e = Capture([&] { Encode(group, {0, 0, uint32_t(kRegion)}); });
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  ExpectError(
      [&] {
        Encode(group, {0, uint32_t(kRegion), uint32_t(kRegion)});
      },
      {"aliasing", "\"dynamic group\"", "binding 1, range 256+16", "binding 2, range 256+16",
       "\"data\""});
}

TEST_F(DynamicOffsets, OffsetCountMustMatchTheLayoutsDynamicBindings) {
  ExpectError(
      [&] {
        Encode(group, {0, 0});
      },
      {"Dynamic offset count (2)", "bind group index 0", "3 dynamic bindings",
       "\"dynamic layout\""});
  ExpectError(
      [&] {
        Encode(group, {0, 0, 0, 0});
      },
      {"Dynamic offset count (4)", "3 dynamic bindings"});
  auto fixedLayout = Layout("fixed layout", {{0, BufferBindingType::Storage, false}});
  auto fixed = Group(fixedLayout, "fixed group", {{0, data, 0}});
  ExpectError(
      [&] {
        auto encoder = device.CreateCommandEncoder();
        auto pass = encoder.BeginComputePass();
        const uint32_t offset = 0;
        pass.SetBindGroup(1, fixed, 1, &offset);
        pass.End();
        encoder.Finish();
      },
      {"Dynamic offset count (1)", "bind group index 1", "0 dynamic bindings", "\"fixed layout\""});
  ExpectError(
      [&] {
        auto encoder = device.CreateCommandEncoder();
        auto pass = encoder.BeginComputePass();
        pass.SetBindGroup(0, group, 3, nullptr);
        pass.End();
        encoder.Finish();
      },
      {"dynamicOffsets is null", "3"});
}

TEST_F(DynamicOffsets, OffsetsMustBeAligned) {
  ExpectError(
      [&] {
        Encode(group, {4, 0, 0});
      },
      {"Dynamic offset [0] (4)", "\"dynamic group\"", "index 0", "binding 0",
       "minUniformBufferOffsetAlignment (256)"});
  ExpectError(
      [&] {
        Encode(group, {0, 0, 260});
      },
      {"Dynamic offset [2] (260)", "binding 2", "minStorageBufferOffsetAlignment (256)"});
}

TEST_F(DynamicOffsets, OffsetsMustKeepTheRangeInsideTheBuffer) {
  // `data` is 1024 bytes; dst binds 16 of them, so 768 is the last offset that fits.
  auto e = Capture([&] { Encode(group, {0, 0, 768}); });
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  ExpectError(
      [&] {
        Encode(group, {0, 0, 1024});
      },
      {"Dynamic offset [2] (1024)", "binding 2", "(offset 0, size 16)", "past the end of",
       "\"data\"", "(size 1024)"});
  ExpectError(
      [&] {
        Encode(group, {768, 0, 256});
      },  // params is 768 bytes
      {"Dynamic offset [0] (768)", "binding 0", "\"params\"", "(size 768)"});
  // The group's own offset counts too: 256 + 768 + 16 > 1024.
  auto shifted = Group(layout, "shifted group", {{0, params, 0}, {1, data, 0}, {2, data, 256}});
  ExpectError(
      [&] {
        Encode(shifted, {0, 0, 768});
      },
      {"Dynamic offset [2] (768)", "\"shifted group\"", "(offset 256, size 16)"});
  // Near the top of uint32: aligned, and far past the end (no wrap-around in the check).
  ExpectError(
      [&] {
        Encode(group, {0, 0xFFFFFF00u, 0});
      },
      {"Dynamic offset [1] (4294967040)", "binding 1", "past the end of"});
}

TEST_F(DynamicOffsets, LayoutsAndPipelineLayoutsKeepToTheDynamicLimits) {
  wgpu::Limits limits;
  ASSERT_EQ(device.GetLimits(&limits), wgpu::Status::Success);
  EXPECT_EQ(limits.maxDynamicUniformBuffersPerPipelineLayout, 8u);  // WebGPU's defaults
  EXPECT_EQ(limits.maxDynamicStorageBuffersPerPipelineLayout, 4u);
  std::vector<Entry> storages, uniforms;
  for (uint32_t b = 0; b < 5; ++b) storages.push_back({b, BufferBindingType::Storage, true});
  for (uint32_t b = 0; b < 9; ++b) uniforms.push_back({b, BufferBindingType::Uniform, true});
  ExpectError([&] { Layout("five dynamic storages", storages); },
              {"\"five dynamic storages\"", "5 storage buffers with hasDynamicOffset",
               "maxDynamicStorageBuffersPerPipelineLayout (4)"});
  ExpectError([&] { Layout("nine dynamic uniforms", uniforms); },
              {"\"nine dynamic uniforms\"", "9 uniform buffers with hasDynamicOffset",
               "maxDynamicUniformBuffersPerPipelineLayout (8)"});
  // Three in each of two groups: each layout is fine, the pipeline layout is not.
  storages.resize(3);
  const wgpu::BindGroupLayout two[] = {Layout("three a", storages), Layout("three b", storages)};
  wgpu::PipelineLayoutDescriptor pl{
      .label = "six dynamic storages", .bindGroupLayoutCount = 2, .bindGroupLayouts = two};
  ExpectError([&] { device.CreatePipelineLayout(&pl); },
              {"\"six dynamic storages\"", "uses 6 storage buffers with hasDynamicOffset",
               "maxDynamicStorageBuffersPerPipelineLayout (4)"});
}

TEST_F(DynamicOffsets, ADeviceGetsTheAdaptersDynamicLimitsWhenItAsks) {
  wgpu::Limits adapterLimits;
  ASSERT_EQ(adapter.GetLimits(&adapterLimits), wgpu::Status::Success);
  EXPECT_GE(adapterLimits.maxDynamicUniformBuffersPerPipelineLayout, 8u);
  EXPECT_GE(adapterLimits.maxDynamicStorageBuffersPerPipelineLayout, 4u);
  wgpu::Limits required;
  required.maxDynamicStorageBuffersPerPipelineLayout =
      adapterLimits.maxDynamicStorageBuffersPerPipelineLayout;
  wgpu::Device d = MakeDevice(&required);
  ASSERT_TRUE(d);
  wgpu::Limits got;
  ASSERT_EQ(d.GetLimits(&got), wgpu::Status::Success);
  EXPECT_EQ(got.maxDynamicStorageBuffersPerPipelineLayout,
            adapterLimits.maxDynamicStorageBuffersPerPipelineLayout);
}

TEST_F(DynamicOffsets, ADynamicLayoutIsIncompatibleWithAFixedOne) {
  auto fixedLayout = Layout("fixed layout", {{0, BufferBindingType::Uniform, false},
                                             {1, BufferBindingType::Storage, false},
                                             {2, BufferBindingType::Storage, false}});
  auto fixed = Group(fixedLayout, "fixed group", {{0, params, 0}, {1, data, 0}, {2, data, 256}});
  ExpectError(
      [&] {
        auto encoder = device.CreateCommandEncoder();
        auto pass = encoder.BeginComputePass();
        pass.SetPipeline(pipeline);
        pass.SetBindGroup(0, fixed);
        pass.DispatchWorkgroups(1);
        pass.End();
        encoder.Finish();
      },
      {"\"fixed group\"", "incompatible", "\"dynamic layout\""});
}

}  // namespace
}  // namespace shim_test
