// WebGPU validation rules. Each case breaks one rule and asserts the error type and that the
// message names the offending object by its label (and, where useful, the rule).
#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferUsage;
using wgpu::ErrorType;

struct MapResult {
  wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::CallbackCancelled;
  std::string message;
};

class Validation : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    storage = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst, "store");
    input = MakeBuffer(256, BufferUsage::Storage, "input");
    pipeline = Pipeline(Kernel("uint", "b[i] = a[i];"), "copy kernel");
  }
  // Expects exactly a validation error whose message contains every fragment.
  void ExpectError(const std::function<void()>& fn, std::initializer_list<std::string_view> fragments,
                   ErrorType type = ErrorType::Validation) {
    auto e = Capture(fn, type == ErrorType::OutOfMemory ? wgpu::ErrorFilter::OutOfMemory
                                                         : wgpu::ErrorFilter::Validation);
    EXPECT_EQ(e.type, type) << e.message;
    for (auto f : fragments) EXPECT_NE(e.message.find(f), std::string::npos) << "missing \"" << f << "\" in: " << e.message;
  }
  void ExpectNoError(const std::function<void()>& fn) {
    auto e = Capture(fn);
    EXPECT_EQ(e.type, ErrorType::NoError) << e.message;
  }
  // `label` is borrowed: descriptors view their strings.
  wgpu::BufferDescriptor Desc(const char* label, uint64_t size, BufferUsage usage,
                              bool mapped = false) {
    wgpu::BufferDescriptor d;
    d.label = label;
    d.size = size;
    d.usage = usage;
    d.mappedAtCreation = mapped;
    return d;
  }
  // Encodes one dispatch with the given groups and returns the finished command buffer.
  wgpu::CommandBuffer EncodeDispatch(const wgpu::ComputePipeline& p, std::vector<wgpu::BindGroup> groups,
                                     uint32_t x = 1) {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(p);
    for (uint32_t i = 0; i < groups.size(); ++i) pass.SetBindGroup(i, groups[i]);
    pass.DispatchWorkgroups(x);
    pass.End();
    return encoder.Finish();
  }
  // The same with the workgroup counts read from `args` at `offset`.
  wgpu::CommandBuffer EncodeIndirect(const wgpu::ComputePipeline& p, const wgpu::BindGroup& group,
                                     const wgpu::Buffer& args, uint64_t offset) {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(p);
    pass.SetBindGroup(0, group);
    pass.DispatchWorkgroupsIndirect(args, offset);
    pass.End();
    return encoder.Finish();
  }
  MapResult MapAndWait(const wgpu::Buffer& b, wgpu::MapMode mode, size_t offset, size_t size);

  wgpu::Buffer storage, input;
  wgpu::ComputePipeline pipeline;
};


MapResult Validation::MapAndWait(const wgpu::Buffer& b, wgpu::MapMode mode, size_t offset, size_t size) {
  MapResult r;
  Wait(b.MapAsync(mode, offset, size, wgpu::CallbackMode::AllowProcessEvents,
                  [&](wgpu::MapAsyncStatus s, std::string_view m) { r = {s, std::string(m)}; }));
  return r;
}

// ---- Buffer creation ----

TEST_F(Validation, BufferUsageNone) {
  auto d = Desc("no usage", 16, BufferUsage::None);
  ExpectError([&] { device.CreateBuffer(&d); }, {"\"no usage\"", "None"});
}
TEST_F(Validation, BufferMapReadWithStorage) {
  auto d = Desc("readback", 16, BufferUsage::MapRead | BufferUsage::Storage);
  ExpectError([&] { device.CreateBuffer(&d); }, {"\"readback\"", "MapRead may only be combined with CopyDst"});
}
TEST_F(Validation, BufferMapWriteWithCopyDst) {
  auto d = Desc("upload", 16, BufferUsage::MapWrite | BufferUsage::CopyDst);
  ExpectError([&] { device.CreateBuffer(&d); }, {"\"upload\"", "MapWrite may only be combined with CopySrc"});
}
TEST_F(Validation, BufferMapReadAndMapWrite) {
  auto d = Desc("both", 16, BufferUsage::MapRead | BufferUsage::MapWrite);
  ExpectError([&] { device.CreateBuffer(&d); }, {"\"both\"", "both MapRead and MapWrite"});
}
TEST_F(Validation, MappedAtCreationUnalignedSize) {
  auto d = Desc("odd", 6, BufferUsage::Storage, true);
  wgpu::Buffer b;
  ExpectError([&] { b = device.CreateBuffer(&d); }, {"\"odd\"", "multiple of 4"});
  // WebGPU still hands out a range to write into, and Unmap must not crash.
  EXPECT_NE(b.GetMappedRange(0, 4), nullptr);
  b.Unmap();
}
TEST_F(Validation, BufferOverMaxBufferSize) {
  wgpu::Limits l;
  device.GetLimits(&l);
  auto d = Desc("huge", l.maxBufferSize + 4, BufferUsage::Storage);
  ExpectError([&] { device.CreateBuffer(&d); }, {"\"huge\"", "maxBufferSize"});
}

// ---- Mapping ----

TEST_F(Validation, MapReadWithoutMapReadUsage) {
  MapResult r;
  ExpectError([&] { r = MapAndWait(storage, wgpu::MapMode::Read, 0, 16); }, {"\"store\"", "MapRead"});
  EXPECT_EQ(r.status, wgpu::MapAsyncStatus::Error);
}
TEST_F(Validation, MapWriteWithoutMapWriteUsage) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "reader");
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Write, 0, 16); }, {"\"reader\"", "MapWrite"});
}
TEST_F(Validation, MapWhilePending) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "pending");
  MapResult first, second;
  auto f1 = b.MapAsync(wgpu::MapMode::Read, 0, 16, wgpu::CallbackMode::AllowProcessEvents,
                       [&](wgpu::MapAsyncStatus s, std::string_view m) { first = {s, std::string(m)}; });
  EXPECT_EQ(b.GetMapState(), wgpu::BufferMapState::Pending);
  ExpectError([&] { second = MapAndWait(b, wgpu::MapMode::Read, 0, 16); }, {"\"pending\"", "map pending"});
  Wait(f1);
  EXPECT_EQ(second.status, wgpu::MapAsyncStatus::Error);
  EXPECT_EQ(first.status, wgpu::MapAsyncStatus::Success);
  EXPECT_EQ(b.GetMapState(), wgpu::BufferMapState::Mapped);
}
TEST_F(Validation, MapWhileMapped) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "mapped");
  EXPECT_EQ(MapAndWait(b, wgpu::MapMode::Read, 0, 16).status, wgpu::MapAsyncStatus::Success);
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read, 0, 16); }, {"\"mapped\"", "already mapped"});
}
TEST_F(Validation, MapOffsetNotMultipleOf8) {
  auto b = MakeBuffer(32, BufferUsage::MapRead | BufferUsage::CopyDst, "misaligned");
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read, 4, 8); }, {"\"misaligned\"", "multiple of 8"});
}
TEST_F(Validation, MapSizeNotMultipleOf4) {
  auto b = MakeBuffer(32, BufferUsage::MapRead | BufferUsage::CopyDst, "ragged");
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read, 0, 6); }, {"\"ragged\"", "multiple of 4"});
}
TEST_F(Validation, MapRangeOutOfBounds) {
  auto b = MakeBuffer(32, BufferUsage::MapRead | BufferUsage::CopyDst, "short");
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read, 16, 32); }, {"\"short\"", "exceeds the buffer size"});
}
TEST_F(Validation, MapDestroyedBuffer) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "gone");
  b.Destroy();
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read, 0, 16); }, {"\"gone\"", "destroyed"});
}
TEST_F(Validation, MapModeMustBeReadOrWrite) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "modes");
  ExpectError([&] { MapAndWait(b, wgpu::MapMode::Read | wgpu::MapMode::Write, 0, 16); },
              {"\"modes\"", "exactly Read or Write"});
}
TEST_F(Validation, UnmapWhilePendingAborts) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "aborted");
  MapResult r;
  auto f = b.MapAsync(wgpu::MapMode::Read, 0, 16, wgpu::CallbackMode::AllowProcessEvents,
                      [&](wgpu::MapAsyncStatus s, std::string_view m) { r = {s, std::string(m)}; });
  ExpectNoError([&] { b.Unmap(); });
  Wait(f);
  EXPECT_EQ(r.status, wgpu::MapAsyncStatus::Aborted);
  EXPECT_NE(r.message.find("unmapped before"), std::string::npos) << r.message;
  EXPECT_EQ(b.GetMapState(), wgpu::BufferMapState::Unmapped);
}
TEST_F(Validation, DestroyWhilePendingAborts) {
  auto b = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "destroyed");
  MapResult r;
  auto f = b.MapAsync(wgpu::MapMode::Read, 0, 16, wgpu::CallbackMode::AllowProcessEvents,
                      [&](wgpu::MapAsyncStatus s, std::string_view m) { r = {s, std::string(m)}; });
  b.Destroy();
  Wait(f);
  EXPECT_EQ(r.status, wgpu::MapAsyncStatus::Aborted);
  EXPECT_NE(r.message.find("destroyed before"), std::string::npos) << r.message;
}
TEST_F(Validation, MappedRangeRules) {
  auto b = MakeBuffer(64, BufferUsage::MapRead | BufferUsage::CopyDst, "ranges");
  EXPECT_EQ(b.GetConstMappedRange(), nullptr);  // not mapped
  ASSERT_EQ(MapAndWait(b, wgpu::MapMode::Read, 16, 32).status, wgpu::MapAsyncStatus::Success);
  EXPECT_EQ(b.GetMappedRange(16, 8), nullptr);       // writable range of a read mapping
  EXPECT_EQ(b.GetConstMappedRange(0, 8), nullptr);   // before the mapped range
  EXPECT_EQ(b.GetConstMappedRange(40, 16), nullptr); // past the mapped range
  EXPECT_NE(b.GetConstMappedRange(16, 8), nullptr);
  EXPECT_EQ(b.GetConstMappedRange(16, 16), nullptr); // overlaps the range handed out
  EXPECT_NE(b.GetConstMappedRange(24, 8), nullptr);
  b.Unmap();
  EXPECT_EQ(b.GetConstMappedRange(16, 8), nullptr);
}

// ---- Bind groups and layouts ----

TEST_F(Validation, StorageBindingWithoutStorageUsage) {
  auto u = MakeBuffer(256, BufferUsage::Uniform, "uniform only");
  ExpectError([&] { Group(pipeline, 0, {input, u}, "bad group"); },
              {"\"bad group\"", "\"uniform only\"", "lacks Storage"});
}
TEST_F(Validation, UniformBindingWithoutUniformUsage) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "uniform layout";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Uniform}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  auto layout = device.CreateBindGroupLayout(&ld);
  wgpu::BindGroupDescriptor d;
  d.label = "ubo group";
  d.layout = layout;
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = storage}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"ubo group\"", "\"store\"", "lacks Uniform"});
}
TEST_F(Validation, BindingPastTheEnd) {
  wgpu::BindGroupDescriptor d;
  d.label = "overrun";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {
      {.binding = 0, .buffer = input, .offset = 0, .size = 512}, {.binding = 1, .buffer = storage}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"overrun\"", "\"input\"", "past the end"});
}
TEST_F(Validation, BindingOffsetUnaligned) {
  wgpu::BindGroupDescriptor d;
  d.label = "unaligned";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = input, .offset = 4, .size = 16},
                                           {.binding = 1, .buffer = storage}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"unaligned\"", "minStorageBufferOffsetAlignment"});
}
TEST_F(Validation, BindGroupEntryCountMismatch) {
  wgpu::BindGroupDescriptor d;
  d.label = "too few";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = input}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"too few\"", "1 entries"});
}
TEST_F(Validation, BindGroupBindingNotInLayout) {
  wgpu::BindGroupDescriptor d;
  d.label = "stray";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = input},
                                           {.binding = 5, .buffer = storage}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"stray\"", "binding 5"});
}
TEST_F(Validation, StorageBindingSizeNotMultipleOf4) {
  wgpu::BindGroupDescriptor d;
  d.label = "ragged binding";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = input, .offset = 0, .size = 6},
                                           {.binding = 1, .buffer = storage}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"ragged binding\"", "multiple of 4"});
}
TEST_F(Validation, UniformBindingOverMaxSize) {
  wgpu::Limits l;
  device.GetLimits(&l);
  auto big = MakeBuffer(l.maxUniformBufferBindingSize + 256, BufferUsage::Uniform, "big ubo");
  wgpu::BindGroupLayoutDescriptor ld;
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Uniform}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  wgpu::BindGroupDescriptor d;
  d.label = "big binding";
  d.layout = device.CreateBindGroupLayout(&ld);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = big}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"big binding\"", "maxUniformBufferBindingSize"});
}
TEST_F(Validation, BindGroupWithInvalidBufferIsInvalid) {
  auto d = Desc("broken", 16, BufferUsage::None);
  wgpu::Buffer broken;
  Capture([&] { broken = device.CreateBuffer(&d); });
  ExpectError([&] { Group(pipeline, 0, {input, broken}, "poisoned"); }, {"\"poisoned\"", "\"broken\"", "invalid"});
}
TEST_F(Validation, LayoutDuplicateBinding) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "dupes";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 3,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}},
      {.binding = 3,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Uniform}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  ExpectError([&] { device.CreateBindGroupLayout(&ld); }, {"\"dupes\"", "more than once"});
}
TEST_F(Validation, PipelineLayoutTooManyGroups) {
  wgpu::Limits l;
  device.GetLimits(&l);
  wgpu::PipelineLayoutDescriptor d;
  d.label = "wide";
  const std::vector<wgpu::BindGroupLayout> layouts(l.maxBindGroups + 1);
  d.bindGroupLayoutCount = layouts.size();
  d.bindGroupLayouts = layouts.data();
  ExpectError([&] { device.CreatePipelineLayout(&d); }, {"\"wide\"", "maxBindGroups"});
}

// ---- Shaders and pipelines ----

TEST_F(Validation, InvalidSpirvAndCompilationInfo) {
  std::vector<uint32_t> garbage = {0x07230203, 0x00010300, 0, 5, 0, 0xdeadbeef};
  wgpu::ShaderSourceSPIRV src;
  src.codeSize = static_cast<uint32_t>(garbage.size());
  src.code = garbage.data();
  wgpu::ShaderModuleDescriptor d;
  d.nextInChain = &src;
  d.label = "garbage";
  wgpu::ShaderModule module;
  ExpectError([&] { module = device.CreateShaderModule(&d); }, {"\"garbage\"", "SPIR-V"});
  size_t messages = 0;
  Wait(module.GetCompilationInfo(
      wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::CompilationInfoRequestStatus, const wgpu::CompilationInfo* info) {
        messages = info->messageCount;
      }));
  EXPECT_GE(messages, 1u);
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "from garbage";
  pd.compute.module = module;
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"from garbage\"", "\"garbage\"", "invalid"});
}
TEST_F(Validation, MissingEntryPoint) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "no main";
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];"), "kernel module");
  pd.compute.entryPoint = "nope";
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"no main\"", "\"nope\""});
}
TEST_F(Validation, LayoutBindingTypeMismatch) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "all read-only";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}},
      {.binding = 1,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  wgpu::PipelineLayoutDescriptor pl;
  const wgpu::BindGroupLayout plLayouts[] = {device.CreateBindGroupLayout(&ld)};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "mismatch";
  pd.layout = device.CreatePipelineLayout(&pl);
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];"));
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"mismatch\"", "storage (read_write) in the shader", "\"all read-only\""});
}
TEST_F(Validation, LayoutMissingBinding) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "only zero";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  wgpu::PipelineLayoutDescriptor pl;
  const wgpu::BindGroupLayout plLayouts[] = {device.CreateBindGroupLayout(&ld)};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "missing binding";
  pd.layout = device.CreatePipelineLayout(&pl);
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];"));
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"missing binding\"", "binding 1", "\"only zero\""});
}
TEST_F(Validation, UnknownOverrideConstant) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "overrides";
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];"));
  const wgpu::ConstantEntry pdConstants[] = {{.key = "kMissing", .value = 1}};
  pd.compute.constantCount = std::size(pdConstants);
  pd.compute.constants = pdConstants;
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"overrides\"", "kMissing"});
}
TEST_F(Validation, WorkgroupSizeOverLimit) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "too wide";
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];", 1024));
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"too wide\"", "workgroup size (1024"});
}
TEST_F(Validation, GetBindGroupLayoutIndexOverLimit) {
  ExpectError([&] { pipeline.GetBindGroupLayout(4); }, {"\"copy kernel\"", "maxBindGroups"});
}

// ---- Compute passes ----

TEST_F(Validation, DispatchWithoutPipeline) {
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    auto d = wgpu::ComputePassDescriptor{.label = "bare pass"};
    auto pass = encoder.BeginComputePass(&d);
    pass.DispatchWorkgroups(1);
    pass.End();
    encoder.Finish();
  }, {"\"bare pass\"", "No pipeline"});
}
TEST_F(Validation, DispatchWithMissingBindGroup) {
  ExpectError([&] { EncodeDispatch(pipeline, {}); }, {"index 0 is not set", "\"copy kernel\""});
}
TEST_F(Validation, DispatchWithIncompatibleAutoLayoutGroup) {
  auto other = Pipeline(Kernel("uint", "b[i] = a[i] + 1u;"), "other kernel");
  auto group = Group(other, 0, {input, storage}, "other group");
  ExpectError([&] { EncodeDispatch(pipeline, {group}); }, {"\"other group\"", "incompatible", "\"copy kernel\""});
}
TEST_F(Validation, WorkgroupCountOverLimit) {
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] { EncodeDispatch(pipeline, {group}, 65536); }, {"65536", "maxComputeWorkgroupsPerDimension"});
}
TEST_F(Validation, WritableStorageAliasing) {
  auto group = Group(pipeline, 0, {storage, storage}, "aliased");
  ExpectError([&] { EncodeDispatch(pipeline, {group}); }, {"aliasing", "\"aliased\"", "\"store\""});
}
// WebGPU's usage scope (Dawn: "includes writable usage and another usage in the same
// synchronization scope"): one buffer read-only and writable in one dispatch is an error even at
// disjoint ranges; writable twice at disjoint ranges is not.
TEST_F(Validation, WritableAndReadOnlyUsageOfOneBufferInADispatch) {
  auto both = MakeBuffer(512, BufferUsage::Storage, "both");
  const auto groupAt = [&](uint64_t readOffset, const char* label) {
    const std::vector<wgpu::BindGroupEntry> entries = {
        {.binding = 0, .buffer = both, .offset = readOffset, .size = 256},
        {.binding = 1, .buffer = both, .offset = 256, .size = 256}};
    wgpu::BindGroupDescriptor d{.label = label, .layout = pipeline.GetBindGroupLayout(0),
                                .entryCount = entries.size(), .entries = entries.data()};
    return device.CreateBindGroup(&d);
  };
  ExpectError([&] { EncodeDispatch(pipeline, {groupAt(0, "disjoint")}); },
              {"\"both\"", "writable storage by [BindGroup \"disjoint\"] (binding 1)",
               "read-only storage", "(binding 0)", "same usage scope"});
  auto twice = Pipeline(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer A { uint a[]; };
layout(set = 0, binding = 1, std430) buffer B { uint b[]; };
void main() { b[0] = a[0]; })",
                        "two writable");
  const std::vector<wgpu::BindGroupEntry> entries = {
      {.binding = 0, .buffer = both, .offset = 0, .size = 256},
      {.binding = 1, .buffer = both, .offset = 256, .size = 256}};
  wgpu::BindGroupDescriptor d{.layout = twice.GetBindGroupLayout(0),
                              .entryCount = entries.size(), .entries = entries.data()};
  const CapturedError e = Capture([&] { EncodeDispatch(twice, {device.CreateBindGroup(&d)}); });
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
}
TEST_F(Validation, IndirectBufferWithoutIndirectUsage) {
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] { EncodeIndirect(pipeline, group, storage, 0); }, {"\"store\"", "Indirect"});
}
TEST_F(Validation, IndirectRangeOutOfBounds) {
  auto args = MakeBuffer(16, BufferUsage::Indirect, "args");
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] { EncodeIndirect(pipeline, group, args, 8); }, {"\"args\"", "does not fit"});
}
TEST_F(Validation, EncoderLockedWhilePassOpen) {
  wgpu::CommandEncoderDescriptor ed{.label = "locked"};
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder(&ed);
    auto pass = encoder.BeginComputePass();
    encoder.ClearBuffer(storage);
    pass.End();
    encoder.Finish();
  }, {"\"locked\"", "compute pass is open"});
}
TEST_F(Validation, FinishWithOpenPass) {
  wgpu::CommandEncoderDescriptor ed{.label = "unfinished"};
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder(&ed);
    auto pass = encoder.BeginComputePass();
    encoder.Finish();
  }, {"\"unfinished\"", "not ended"});
}
TEST_F(Validation, PassEndedTwice) {
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    auto d = wgpu::ComputePassDescriptor{.label = "twice"};
    auto pass = encoder.BeginComputePass(&d);
    pass.End();
    pass.End();
    encoder.Finish();
  }, {"\"twice\"", "already ended"});
}
TEST_F(Validation, SetBindGroupIndexOverLimit) {
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetBindGroup(7, group);
    pass.End();
    encoder.Finish();
  }, {"index (7)", "maxBindGroups"});
}
TEST_F(Validation, FinishTwice) {
  wgpu::CommandEncoderDescriptor ed{.label = "finished"};
  auto encoder = device.CreateCommandEncoder(&ed);
  encoder.Finish();
  ExpectError([&] { encoder.Finish(); }, {"\"finished\"", "already finished"});
}

// ---- Copies ----

TEST_F(Validation, CopyUnalignedSize) {
  auto dst = MakeBuffer(64, BufferUsage::CopyDst, "dst");
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, dst, 0, 6);
    encoder.Finish();
  }, {"Copy size (6)", "multiple of 4"});
}
TEST_F(Validation, CopySourceWithoutCopySrc) {
  auto dst = MakeBuffer(64, BufferUsage::CopyDst, "dst");
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(input, 0, dst, 0, 16);
    encoder.Finish();
  }, {"\"input\"", "CopySrc"});
}
TEST_F(Validation, CopyOutOfBounds) {
  auto dst = MakeBuffer(64, BufferUsage::CopyDst, "small dst");
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, dst, 32, 64);
    encoder.Finish();
  }, {"\"small dst\"", "does not fit"});
}
TEST_F(Validation, CopyToItself) {
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, storage, 128, 16);
    encoder.Finish();
  }, {"\"store\"", "same buffer"});
}
TEST_F(Validation, ClearUnalignedOffset) {
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.ClearBuffer(storage, 2, 8);
    encoder.Finish();
  }, {"Offset (2)", "multiple of 4"});
}

// ---- Submits and queue writes ----

TEST_F(Validation, SubmitDestroyedBuffer) {
  auto group = Group(pipeline, 0, {input, storage});
  auto commands = EncodeDispatch(pipeline, {group});
  storage.Destroy();
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"store\"", "destroyed"});
}
TEST_F(Validation, SubmitMappedBuffer) {
  auto readback = MakeBuffer(64, BufferUsage::MapRead | BufferUsage::CopyDst, "still mapped");
  ASSERT_EQ(MapAndWait(readback, wgpu::MapMode::Read, 0, 64).status, wgpu::MapAsyncStatus::Success);
  auto encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(storage, 0, readback, 0, 64);
  auto commands = encoder.Finish();
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"still mapped\"", "while mapped"});
}
TEST_F(Validation, SubmitPendingMapBuffer) {
  auto readback = MakeBuffer(64, BufferUsage::MapRead | BufferUsage::CopyDst, "map pending");
  auto encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(storage, 0, readback, 0, 64);
  auto commands = encoder.Finish();
  auto f = readback.MapAsync(wgpu::MapMode::Read, 0, 64, wgpu::CallbackMode::AllowProcessEvents,
                             [](wgpu::MapAsyncStatus, std::string_view) {});
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"map pending\"", "map is pending"});
  Wait(f);
}
TEST_F(Validation, SubmitTwice) {
  auto encoder = device.CreateCommandEncoder();
  wgpu::CommandBufferDescriptor cd{.label = "once"};
  auto commands = encoder.Finish(&cd);
  ExpectNoError([&] { queue.Submit(1, &commands); });
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"once\"", "already submitted"});
}
TEST_F(Validation, SubmitInvalidCommandBuffer) {
  auto dst = MakeBuffer(64, BufferUsage::CopyDst, "dst");
  wgpu::CommandBuffer commands;
  Capture([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, dst, 0, 6);
    wgpu::CommandBufferDescriptor cd{.label = "broken commands"};
    commands = encoder.Finish(&cd);
  });
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"broken commands\"", "invalid"});
}
TEST_F(Validation, WriteBufferRules) {
  std::vector<uint8_t> data(64);
  ExpectError([&] { queue.WriteBuffer(storage, 2, data.data(), 8); }, {"\"store\"", "offset (2)"});
  ExpectError([&] { queue.WriteBuffer(storage, 0, data.data(), 6); }, {"\"store\"", "size (6)"});
  ExpectError([&] { queue.WriteBuffer(storage, 240, data.data(), 32); }, {"\"store\"", "does not fit"});
  ExpectError([&] { queue.WriteBuffer(input, 0, data.data(), 16); }, {"\"input\"", "CopyDst"});
}

// ---- Error scopes and callbacks ----

TEST_F(Validation, PopEmptyScope) {
  wgpu::PopErrorScopeStatus status = wgpu::PopErrorScopeStatus::Success;
  std::string message;
  Wait(device.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                            [&](wgpu::PopErrorScopeStatus s, wgpu::ErrorType, std::string_view m) {
                              status = s;
                              message = m;
                            }));
  EXPECT_EQ(status, wgpu::PopErrorScopeStatus::Error);
  EXPECT_NE(message.find("No error scopes"), std::string::npos);
}
TEST_F(Validation, ScopesFilterAndNest) {
  auto d = Desc("scoped", 16, BufferUsage::None);
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  device.PushErrorScope(wgpu::ErrorFilter::OutOfMemory);  // does not match: the outer one catches
  device.CreateBuffer(&d);
  std::vector<std::pair<wgpu::ErrorType, std::string>> popped;
  auto record = [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType t, std::string_view m) {
    popped.emplace_back(t, std::string(m));
  };
  Wait(device.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents, record));
  Wait(device.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents, record));
  ASSERT_EQ(popped.size(), 2u);
  EXPECT_EQ(popped[0].first, ErrorType::NoError);
  EXPECT_EQ(popped[1].first, ErrorType::Validation);
  EXPECT_NE(popped[1].second.find("\"scoped\""), std::string::npos);
}
TEST_F(Validation, UncapturedErrorsReachTheCallback) {
  expectUncaptured = true;
  auto d = Desc("loose", 16, BufferUsage::None);
  device.CreateBuffer(&d);
  ASSERT_EQ(uncaptured.size(), 1u);
  EXPECT_EQ(uncaptured[0].type, ErrorType::Validation);
  EXPECT_NE(uncaptured[0].message.find("\"loose\""), std::string::npos);
}
TEST_F(Validation, NullHandleThrowsInsteadOfCrashing) {
  wgpu::Buffer null;
  EXPECT_THROW(null.GetSize(), std::logic_error);
}

}  // namespace
}  // namespace shim_test

namespace shim_test {
namespace {

// ---- Ranges near the top of the integer types: every offset + size check is overflow-safe ----

constexpr uint64_t kU64Max = ~uint64_t{0};
constexpr size_t kSizeMax = ~size_t{0};

TEST_F(Validation, MapAsyncRangeThatWrapsIsAnError) {
  auto b = MakeBuffer(64, BufferUsage::MapRead | BufferUsage::CopyDst, "wrapping map");
  MapResult r;
  ExpectError([&] { r = MapAndWait(b, wgpu::MapMode::Read, 8, kSizeMax - 7); },
              {"\"wrapping map\"", "exceeds the buffer size"});
  EXPECT_EQ(r.status, wgpu::MapAsyncStatus::Error);
  EXPECT_EQ(b.GetMapState(), wgpu::BufferMapState::Unmapped);
  ExpectError([&] { r = MapAndWait(b, wgpu::MapMode::Read, kSizeMax - 7, 16); },
              {"\"wrapping map\"", "map offset"});
  EXPECT_EQ(r.status, wgpu::MapAsyncStatus::Error);
}
TEST_F(Validation, MappedRangeThatWrapsIsNull) {
  auto b = MakeBuffer(64, BufferUsage::MapRead | BufferUsage::CopyDst, "read ranges");
  ASSERT_EQ(MapAndWait(b, wgpu::MapMode::Read, 0, 64).status, wgpu::MapAsyncStatus::Success);
  EXPECT_EQ(b.GetConstMappedRange(8, kSizeMax - 7), nullptr);
  EXPECT_EQ(b.GetConstMappedRange(kSizeMax - 7, 16), nullptr);
  EXPECT_EQ(b.GetConstMappedRange(kSizeMax - 7, wgpu::kWholeMapSize), nullptr);
  EXPECT_NE(b.GetConstMappedRange(8, 8), nullptr);  // the overlap check must not wrap either
  EXPECT_EQ(b.GetConstMappedRange(kSizeMax - 7, 8), nullptr);
  b.Unmap();
  auto w = MakeBuffer(64, BufferUsage::MapWrite | BufferUsage::CopySrc, "write ranges");
  ASSERT_EQ(MapAndWait(w, wgpu::MapMode::Write, 0, 64).status, wgpu::MapAsyncStatus::Success);
  EXPECT_EQ(w.GetMappedRange(8, kSizeMax - 7), nullptr);
  EXPECT_EQ(w.GetMappedRange(kSizeMax - 7, 16), nullptr);
  EXPECT_NE(w.GetMappedRange(0, 64), nullptr);
  w.Unmap();
}
TEST_F(Validation, CopyRangesNearUint64Max) {
  auto dst = MakeBuffer(256, BufferUsage::CopyDst, "copy dst");
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 8, dst, 0, kU64Max - 7);
    encoder.Finish();
  }, {"\"store\"", "does not fit"});
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, dst, kU64Max - 3, 8);
    encoder.Finish();
  }, {"\"copy dst\"", "does not fit"});
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.ClearBuffer(storage, 8, kU64Max - 7);
    encoder.Finish();
  }, {"\"store\"", "does not fit"});
}
TEST_F(Validation, WriteBufferRangeNearUint64Max) {
  std::vector<uint8_t> data(16);
  ExpectError([&] { queue.WriteBuffer(storage, kU64Max - 3, data.data(), 8); }, {"\"store\"", "does not fit"});
  ExpectError([&] { queue.WriteBuffer(storage, 8, data.data(), kSizeMax - 7); }, {"\"store\"", "does not fit"});
}
TEST_F(Validation, BindingRangeNearUint64Max) {
  wgpu::BindGroupDescriptor d;
  d.label = "huge range";
  d.layout = pipeline.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {
      {.binding = 0, .buffer = input, .offset = 0, .size = 256},
      {.binding = 1, .buffer = storage, .offset = 256, .size = kU64Max - 255}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"huge range\"", "\"store\""});
  const wgpu::BindGroupEntry dEntries2[] = {
      {.binding = 0, .buffer = input, .offset = 0, .size = 256},
      {.binding = 1, .buffer = storage, .offset = kU64Max & ~uint64_t{255}, .size = 16}};
  d.entryCount = std::size(dEntries2);
  d.entries = dEntries2;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"huge range\"", "\"store\""});
}
TEST_F(Validation, IndirectOffsetNearUint64Max) {
  auto args = MakeBuffer(16, BufferUsage::Indirect, "far args");
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] { EncodeIndirect(pipeline, group, args, kU64Max - 3); }, {"\"far args\"", "does not fit"});
}

// ---- Objects of another device ----

class ForeignDevice : public Validation {
 protected:
  void SetUp() override {
    Validation::SetUp();
    other = MakeDevice();
    ASSERT_TRUE(other);
    wgpu::BufferDescriptor bd;
    bd.label = "foreign buffer";
    bd.size = 256;
    bd.usage = BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst | BufferUsage::Indirect;
    foreignBuffer = other.CreateBuffer(&bd);
  }
  wgpu::ShaderModule ModuleOn(const wgpu::Device& d, std::string_view glsl, std::string label) {
    auto words = CompileGlsl(glsl);
    wgpu::ShaderSourceSPIRV spirv;
    spirv.codeSize = static_cast<uint32_t>(words.size());
    spirv.code = words.data();
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &spirv;
    md.label = label;
    return d.CreateShaderModule(&md);
  }
  void TearDown() override {
    if (other) {
      other.GetQueue().OnSubmittedWorkDone(wgpu::CallbackMode::AllowProcessEvents,
                                           [](wgpu::QueueWorkDoneStatus, std::string_view) {});
    }
    Validation::TearDown();
  }
  wgpu::Device other;
  wgpu::Buffer foreignBuffer;
};

TEST_F(ForeignDevice, SubmitCommandBufferOfAnotherDevice) {
  auto encoder = other.CreateCommandEncoder();
  wgpu::CommandBufferDescriptor cd{.label = "foreign commands"};
  auto commands = encoder.Finish(&cd);
  ExpectError([&] { queue.Submit(1, &commands); }, {"\"foreign commands\"", "cannot be used with"});
  // Still submittable on its own device.
  other.PushErrorScope(wgpu::ErrorFilter::Validation);
  other.GetQueue().Submit(1, &commands);
  ErrorType type = ErrorType::Unknown;
  Wait(other.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                           [&](wgpu::PopErrorScopeStatus, ErrorType t, std::string_view) { type = t; }));
  EXPECT_EQ(type, ErrorType::NoError);
}
TEST_F(ForeignDevice, PipelineOfAnotherDeviceInAPass) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "foreign pipeline";
  pd.compute.module = ModuleOn(other, Kernel("uint", "b[i] = a[i];"), "foreign module");
  auto foreign = other.CreateComputePipeline(&pd);
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(foreign);
    pass.End();
    encoder.Finish();
  }, {"\"foreign pipeline\"", "cannot be used with"});
}
TEST_F(ForeignDevice, BindGroupOfAnotherDeviceInAPass) {
  wgpu::BindGroupLayoutDescriptor ld;
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  wgpu::BindGroupDescriptor d;
  d.label = "foreign group";
  d.layout = other.CreateBindGroupLayout(&ld);
  const wgpu::BindGroupEntry dEntries[] = {{.binding = 0, .buffer = foreignBuffer}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  auto foreign = other.CreateBindGroup(&d);
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetBindGroup(0, foreign);
    pass.End();
    encoder.Finish();
  }, {"\"foreign group\"", "cannot be used with"});
}
TEST_F(ForeignDevice, IndirectBufferOfAnotherDevice) {
  auto group = Group(pipeline, 0, {input, storage});
  ExpectError([&] { EncodeIndirect(pipeline, group, foreignBuffer, 0); }, {"\"foreign buffer\"", "cannot be used with"});
}
TEST_F(ForeignDevice, CopyClearAndWriteWithABufferOfAnotherDevice) {
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(storage, 0, foreignBuffer, 0, 16);
    encoder.Finish();
  }, {"\"foreign buffer\"", "cannot be used with"});
  ExpectError([&] {
    auto encoder = device.CreateCommandEncoder();
    encoder.ClearBuffer(foreignBuffer);
    encoder.Finish();
  }, {"\"foreign buffer\"", "cannot be used with"});
  std::vector<uint8_t> data(16);
  ExpectError([&] { queue.WriteBuffer(foreignBuffer, 0, data.data(), 16); },
              {"\"foreign buffer\"", "cannot be used with"});
}
TEST_F(ForeignDevice, LayoutsAndModulesOfAnotherDevice) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "foreign layout";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}},
      {.binding = 1,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  auto foreignLayout = other.CreateBindGroupLayout(&ld);
  wgpu::BindGroupDescriptor bg;
  bg.label = "local group";
  bg.layout = foreignLayout;
  const wgpu::BindGroupEntry bgEntries[] = {{.binding = 0, .buffer = input},
                                            {.binding = 1, .buffer = storage}};
  bg.entryCount = std::size(bgEntries);
  bg.entries = bgEntries;
  ExpectError([&] { device.CreateBindGroup(&bg); }, {"\"foreign layout\"", "cannot be used with"});

  wgpu::PipelineLayoutDescriptor pl;
  pl.label = "local pipeline layout";
  const wgpu::BindGroupLayout plLayouts[] = {foreignLayout};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  ExpectError([&] { device.CreatePipelineLayout(&pl); }, {"\"foreign layout\"", "cannot be used with"});

  wgpu::ComputePipelineDescriptor pd;
  pd.label = "local pipeline";
  pd.compute.module = ModuleOn(other, Kernel("uint", "b[i] = a[i];"), "foreign module");
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"foreign module\"", "cannot be used with"});

  wgpu::PipelineLayoutDescriptor foreignPl;
  foreignPl.label = "foreign pipeline layout";
  const wgpu::BindGroupLayout foreignPlLayouts[] = {foreignLayout};
  foreignPl.bindGroupLayoutCount = std::size(foreignPlLayouts);
  foreignPl.bindGroupLayouts = foreignPlLayouts;
  pd.layout = other.CreatePipelineLayout(&foreignPl);
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i];"), "local module");
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"foreign pipeline layout\"", "cannot be used with"});
}

// ---- Workgroup limits ----

TEST_F(Validation, WorkgroupStorageOverLimit) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "big tile";
  pd.compute.module = Module(
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(set = 0, binding = 0, std430) buffer B { float b[]; };\n"
      "shared float tile[16384];\n"  // 64 KiB, over the default 16 KiB
      "void main() { tile[gl_LocalInvocationIndex] = 1.0; barrier(); b[0] = tile[1]; }\n");
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"big tile\"", "65536", "maxComputeWorkgroupStorageSize (16384)"});
  // Exactly at the limit is fine (a struct member counts with its padding: 4096 vec4s = 64 KiB).
  pd.label = "at limit";
  pd.compute.module = Module(
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(set = 0, binding = 0, std430) buffer B { float b[]; };\n"
      "struct S { vec3 v; float w; };\n"
      "shared S tile[1024];\n"
      "void main() { tile[gl_LocalInvocationIndex].w = 1.0; barrier(); b[0] = tile[1].w; }\n");
  ExpectNoError([&] { device.CreateComputePipeline(&pd); });
}
TEST_F(Validation, WorkgroupStorageOverLimitFromWgsl) {
  wgpu::ShaderSourceWGSL src;
  src.code =
      "var<workgroup> tile : array<f32, 8192>;\n"
      "@group(0) @binding(0) var<storage, read_write> out : array<f32>;\n"
      "@compute @workgroup_size(64)\n"
      "fn main(@builtin(local_invocation_index) lid : u32) {\n"
      "  tile[lid] = 1.0;\n  workgroupBarrier();\n  out[lid] = tile[lid + 1u];\n}\n";
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &src;
  md.label = "wgsl tile";
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "wgsl big tile";
  pd.compute.module = device.CreateShaderModule(&md);
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"wgsl big tile\"", "32768", "maxComputeWorkgroupStorageSize"});
}
TEST_F(Validation, OverriddenWorkgroupSizeOverLimit) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "override width";
  pd.compute.module = Module(
      "#version 450\nlayout(local_size_x_id = 7) in;\n"
      "layout(set = 0, binding = 0, std430) buffer B { float b[]; };\n"
      "void main() { b[gl_GlobalInvocationID.x] = 1.0; }\n");
  ExpectNoError([&] { device.CreateComputePipeline(&pd); });  // the default (1) is fine
  const wgpu::ConstantEntry pdConstants[] = {{.key = "7", .value = 512}};
  pd.compute.constantCount = std::size(pdConstants);
  pd.compute.constants = pdConstants;
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"override width\"", "workgroup size (512"});
  const wgpu::ConstantEntry pdConstants2[] = {{.key = "7", .value = 0}};
  pd.compute.constantCount = std::size(pdConstants2);
  pd.compute.constants = pdConstants2;
  ExpectError([&] { device.CreateComputePipeline(&pd); }, {"\"override width\"", "workgroup size (0"});
}

TEST_F(Validation, OverriddenWorkgroupArrayLengthOverLimit) {
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "override tile";
  pd.compute.module = Module(
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(constant_id = 3) const int N = 256;\n"
      "layout(set = 0, binding = 0, std430) buffer B { float b[]; };\n"
      "shared float tile[N];\n"
      "void main() { tile[gl_LocalInvocationIndex] = 1.0; barrier(); b[0] = tile[1]; }\n");
  ExpectNoError([&] { device.CreateComputePipeline(&pd); });  // 1 KiB at the default
  const wgpu::ConstantEntry pdConstants[] = {{.key = "3", .value = 8192}};
  pd.compute.constantCount = std::size(pdConstants);
  pd.compute.constants = pdConstants;
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"override tile\"", "32768", "maxComputeWorkgroupStorageSize (16384)"});
}

// ---- Minimum binding sizes from the shader ----

constexpr const char* kUniformStructKernel =
    "#version 450\nlayout(local_size_x = 1) in;\n"
    "layout(set = 0, binding = 0, std140) uniform Params { vec4 rows[4]; };\n"  // 64 bytes
    "layout(set = 0, binding = 1, std430) buffer Out { vec4 head[2]; float tail[]; };\n"  // 48: see below
    "void main() { head[0] = rows[3]; tail[0] = rows[0].x; }\n";

TEST_F(Validation, AutoLayoutBindingSmallerThanTheShadersStruct) {
  auto p = Pipeline(kUniformStructKernel, "struct kernel");
  auto params = MakeBuffer(256, BufferUsage::Uniform, "params");
  auto out = MakeBuffer(256, BufferUsage::Storage, "out");
  wgpu::BindGroupDescriptor d;
  d.label = "short params";
  d.layout = p.GetBindGroupLayout(0);
  const wgpu::BindGroupEntry dEntries[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 32}, {.binding = 1, .buffer = out}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"short params\"", "size (32)", "minBindingSize (64)"});
  d.label = "short out";
  const wgpu::BindGroupEntry dEntries2[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 64},
      {.binding = 1, .buffer = out, .offset = 0, .size = 32}};
  d.entryCount = std::size(dEntries2);
  d.entries = dEntries2;
  // WebGPU sizes a runtime-sized array as one element and rounds the struct up to its alignment:
  // 32 + 4 bytes, aligned to the vec4's 16.
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"short out\"", "size (32)", "minBindingSize (48)"});
  const wgpu::BindGroupEntry dEntries3[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 64},
      {.binding = 1, .buffer = out, .offset = 0, .size = 44}};
  d.entryCount = std::size(dEntries3);
  d.entries = dEntries3;
  ExpectError([&] { device.CreateBindGroup(&d); }, {"\"short out\"", "size (44)", "minBindingSize (48)"});
  d.label = "just right";
  const wgpu::BindGroupEntry dEntries4[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 64},
      {.binding = 1, .buffer = out, .offset = 0, .size = 48}};
  d.entryCount = std::size(dEntries4);
  d.entries = dEntries4;
  ExpectNoError([&] { device.CreateBindGroup(&d); });
}
TEST_F(Validation, ExplicitLayoutMinBindingSizeBelowTheShaders) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "loose layout";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Uniform,
                  .hasDynamicOffset = false,
                  .minBindingSize = 16}},
      {.binding = 1,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  wgpu::PipelineLayoutDescriptor pl;
  const wgpu::BindGroupLayout plLayouts[] = {device.CreateBindGroupLayout(&ld)};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "strict kernel";
  pd.layout = device.CreatePipelineLayout(&pl);
  pd.compute.module = Module(kUniformStructKernel);
  ExpectError([&] { device.CreateComputePipeline(&pd); },
              {"\"strict kernel\"", "minBindingSize (16)", "64", "\"loose layout\""});
}
TEST_F(Validation, ExplicitLayoutWithoutMinBindingSizeIsCheckedAtDispatch) {
  wgpu::BindGroupLayoutDescriptor ld;
  ld.label = "open layout";
  const wgpu::BindGroupLayoutEntry ldEntries[] = {
      {.binding = 0,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Uniform}},
      {.binding = 1,
       .visibility = wgpu::ShaderStage::Compute,
       .buffer = {.type = wgpu::BufferBindingType::Storage}}};
  ld.entryCount = std::size(ldEntries);
  ld.entries = ldEntries;
  auto bgl = device.CreateBindGroupLayout(&ld);
  wgpu::PipelineLayoutDescriptor pl;
  const wgpu::BindGroupLayout plLayouts[] = {bgl};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  wgpu::ComputePipelineDescriptor pd;
  pd.label = "struct kernel";
  pd.layout = device.CreatePipelineLayout(&pl);
  pd.compute.module = Module(kUniformStructKernel);
  auto p = device.CreateComputePipeline(&pd);
  auto params = MakeBuffer(256, BufferUsage::Uniform, "params");
  auto out = MakeBuffer(256, BufferUsage::Storage, "out");
  wgpu::BindGroupDescriptor d;
  d.label = "small group";
  d.layout = bgl;
  const wgpu::BindGroupEntry dEntries[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 32}, {.binding = 1, .buffer = out}};
  d.entryCount = std::size(dEntries);
  d.entries = dEntries;
  wgpu::BindGroup group;
  ExpectNoError([&] { group = device.CreateBindGroup(&d); });  // the layout asks for nothing
  ExpectError([&] { EncodeDispatch(p, {group}); },
              {"\"small group\"", "binding 0", "size (32)", "64", "\"struct kernel\""});
  d.label = "big group";
  const wgpu::BindGroupEntry dEntries2[] = {
      {.binding = 0, .buffer = params, .offset = 0, .size = 64}, {.binding = 1, .buffer = out}};
  d.entryCount = std::size(dEntries2);
  d.entries = dEntries2;
  auto ok = device.CreateBindGroup(&d);
  ExpectNoError([&] {
    auto commands = EncodeDispatch(p, {ok});
    queue.Submit(1, &commands);
  });
}

}  // namespace
}  // namespace shim_test
