// Dawn's BindGroupTests (the compute cases), re-checked on the shim: dynamic offsets apply in
// binding-number order whatever the order of the layout's entries or their types; a dynamic and a
// fixed binding never trade places; atomics work through a dynamically offset binding that also
// has an offset of its own; groups (with their offsets) set before the pipeline, or kept across a
// pipeline change, are the ones the dispatch uses; binding numbers need not be small or dense.
#include <array>

#include "e2e.h"

using namespace e2e;
using T = wgpu::BufferBindingType;

namespace {

uint32_t align = 0;  // minUniformBufferOffsetAlignment (= the storage one on the devices tested)

void Dispatch(const wgpu::ComputePipeline& pipeline, const std::vector<wgpu::BindGroup>& groups,
              const std::vector<std::vector<uint32_t>>& offsets, bool groupsFirst = false) {
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  if (!groupsFirst) pass.SetPipeline(pipeline);
  for (uint32_t i = 0; i < groups.size(); ++i)
    pass.SetBindGroup(i, groups[i], offsets[i].size(), offsets[i].data());
  if (groupsFirst) pass.SetPipeline(pipeline);
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
}

// Three dynamic bindings declared as 3, 0, 2 (two read-only storage, one uniform) and a fixed
// output at 4: the offsets given are binding 0's, 2's, 3's.
void OffsetOrder() {
  const std::array<uint32_t, 3> offsets = {3 * align, 1 * align, 2 * align};
  const std::array<uint32_t, 3> values = {0x15, 0x43, 0x20};
  const uint64_t size = 3ull * align + 4;
  wgpu::Buffer b0 = CreateBuffer(size, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst);
  wgpu::Buffer b3 = CreateBuffer(size, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst);
  wgpu::Buffer b2 = CreateBuffer(size, wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst);
  queue.WriteBuffer(b0, offsets[0], &values[0], 4);
  queue.WriteBuffer(b2, offsets[1], &values[1], 4);
  queue.WriteBuffer(b3, offsets[2], &values[2], 4);
  wgpu::Buffer out = BufferFrom({0, 0, 0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::BindGroupLayout layout = MakeLayout({{3, T::ReadOnlyStorage, true},
                                             {0, T::ReadOnlyStorage, true},
                                             {2, T::Uniform, true},
                                             {4, T::Storage}});
  wgpu::BindGroup group =
      MakeBindGroup(layout, {{0, b0, 0, 4}, {3, b3, 0, 4}, {2, b2, 0, 4}, {4, out, 0, 12}});
  wgpu::ComputePipeline pipeline = Pipeline(R"(
struct Word { value : u32 }
@group(0) @binding(2) var<uniform> two : Word;
@group(0) @binding(3) var<storage, read> three : Word;
@group(0) @binding(0) var<storage, read> zero : Word;
@group(0) @binding(4) var<storage, read_write> out : vec3u;
@compute @workgroup_size(1) fn main() {
  out = vec3u(zero.value, two.value, three.value);
}
)",
                                            MakePipelineLayout({layout}));
  Dispatch(pipeline, {group}, {{offsets.begin(), offsets.end()}});
  ExpectBufferEq({values.begin(), values.end()}, out, 0, "dynamic offsets in binding-number order");
}

// One dynamic and one fixed uniform binding, the dynamic one first or second.
void DynamicAndFixedKeepTheirPlaces(bool dynamicFirst) {
  const uint32_t dynamicBinding = dynamicFirst ? 0 : 1, fixedBinding = dynamicFirst ? 1 : 0;
  const uint64_t size = 2ull * align + 4;
  wgpu::Buffer dynamic =
      CreateBuffer(size, wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst);
  wgpu::Buffer fixed = CreateBuffer(size, wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst);
  const uint32_t a = 21, b = 67;
  queue.WriteBuffer(dynamic, align, &a, 4);  // at the dynamic offset
  queue.WriteBuffer(fixed, 0, &b, 4);
  wgpu::Buffer out = BufferFrom({0, 0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::BindGroupLayout layout =
      MakeLayout({{dynamicBinding, T::Uniform, true}, {fixedBinding, T::Uniform}, {2, T::Storage}});
  wgpu::BindGroup group = MakeBindGroup(
      layout, {{dynamicBinding, dynamic, 0, 4}, {fixedBinding, fixed, 0, 4}, {2, out, 0, 8}});
  const std::string wgsl =
      "struct Word { value : u32 }\n@group(0) @binding(" + std::to_string(dynamicBinding) +
      ") var<uniform> moved : Word;\n@group(0) @binding(" + std::to_string(fixedBinding) +
      ") var<uniform> still : Word;\n"
      "@group(0) @binding(2) var<storage, read_write> out : vec2u;\n"
      "@compute @workgroup_size(1) fn main() { out = vec2u(moved.value, still.value); }\n";
  Dispatch(Pipeline(wgsl.c_str(), MakePipelineLayout({layout})), {group}, {{align}});
  ExpectBufferEq({a, b}, out, 0,
                 dynamicFirst ? "dynamic binding 0, fixed 1" : "fixed binding 0, dynamic 1");
}

// The binding starts 64 words in, the dynamic offset moves it 64 more: the atomics touch words
// 128..137 and nothing else.
void AtomicsThroughADynamicOffset() {
  constexpr uint32_t kWords = 256, kBase = 64, kDynamic = 64;
  std::vector<uint32_t> data(kWords, 0);
  for (uint32_t i = 0; i < 10; ++i) data[kBase + kDynamic + i] = 6;
  wgpu::Buffer buffer = BufferFrom(data, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::BindGroupLayout layout = MakeLayout({{0, T::Storage, true}});
  wgpu::BindGroup group = MakeBindGroup(layout, {{0, buffer, kBase * 4, 10 * 4}});
  wgpu::ComputePipeline pipeline = Pipeline(R"(
@group(0) @binding(0) var<storage, read_write> words : array<atomic<u32>>;
@compute @workgroup_size(1) fn main() {
  atomicStore(&words[0], atomicLoad(&words[0]));
  atomicAdd(&words[1], 1u);
  atomicSub(&words[2], 1u);
  atomicMax(&words[3], 8u);
  atomicMin(&words[4], 4u);
  atomicAnd(&words[5], 3u);
  atomicOr(&words[6], 8u);
  atomicXor(&words[7], 15u);
  atomicExchange(&words[8], 13u);
  let swapped = atomicCompareExchangeWeak(&words[9], 6u, 42u);
}
)",
                                            MakePipelineLayout({layout}));
  Dispatch(pipeline, {group}, {{kDynamic * 4}});
  std::vector<uint32_t> expected(kWords, 0);
  const uint32_t results[10] = {6, 7, 5, 8, 4, 6 & 3, 6 | 8, 6 ^ 15, 13, 42};
  for (uint32_t i = 0; i < 10; ++i) expected[kBase + kDynamic + i] = results[i];
  ExpectBufferEq(expected, buffer, 0, "atomics through a dynamic offset");
}

// Group 0 (fixed) and group 1 (dynamic) set before the pipeline; then a second pipeline using
// only group 1 after a first one, without setting the groups again.
void GroupsBeforeAndAcrossPipelines() {
  wgpu::BindGroupLayout fixedLayout = MakeLayout({{0, T::Uniform}});
  wgpu::BindGroupLayout dynamicLayout = MakeLayout({{0, T::Storage, true}});
  wgpu::Buffer k = BufferFrom({5, 0, 0, 0}, wgpu::BufferUsage::Uniform);
  wgpu::Buffer out = BufferFrom(std::vector<uint32_t>(2 * align / 4, 0),
                                wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::BindGroup fixedGroup = MakeBindGroup(fixedLayout, {{0, k}});
  wgpu::BindGroup dynamicGroup = MakeBindGroup(dynamicLayout, {{0, out, 0, 4}});
  wgpu::PipelineLayout both = MakePipelineLayout({fixedLayout, dynamicLayout});
  wgpu::ComputePipeline write = Pipeline(R"(
struct K { k : u32 }
@group(0) @binding(0) var<uniform> k : K;
@group(1) @binding(0) var<storage, read_write> out : u32;
@compute @workgroup_size(1) fn main() { out = k.k * 10u; }
)",
                                         both);
  wgpu::ComputePipeline bump = Pipeline(R"(
struct K { k : u32 }
@group(0) @binding(0) var<uniform> k : K;
@group(1) @binding(0) var<storage, read_write> out : u32;
@compute @workgroup_size(1) fn main() { out += k.k; }
)",
                                        both);
  Dispatch(write, {fixedGroup, dynamicGroup}, {{}, {align}}, /*groupsFirst=*/true);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetBindGroup(0, fixedGroup);
  const uint32_t zero = 0;
  pass.SetBindGroup(1, dynamicGroup, 1, &zero);
  pass.SetPipeline(write);
  pass.DispatchWorkgroups(1);
  pass.SetPipeline(bump);  // the groups and the offset stay
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  std::vector<uint32_t> expected(2 * align / 4, 0);
  expected[0] = 55;
  expected[align / 4] = 50;
  ExpectBufferEq(expected, out, 0,
                 "groups set before the pipeline, and kept across a pipeline change");
}

void LargeSparseBindingNumbers() {
  wgpu::Buffer a = BufferFrom({1, 0, 0, 0}, wgpu::BufferUsage::Uniform);
  wgpu::Buffer b = BufferFrom({20, 0, 0, 0}, wgpu::BufferUsage::Uniform);
  wgpu::Buffer c = BufferFrom({300, 0, 0, 0}, wgpu::BufferUsage::Uniform);
  wgpu::Buffer out = BufferFrom({0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::ComputePipeline pipeline = Pipeline(R"(
struct Word { value : u32 }
@group(0) @binding(553) var<uniform> a : Word;
@group(0) @binding(47) var<uniform> b : Word;
@group(0) @binding(111) var<uniform> c : Word;
@group(0) @binding(900) var<storage, read_write> out : u32;
@compute @workgroup_size(1) fn main() { out = a.value + b.value + c.value; }
)");
  Dispatch(
      pipeline,
      {MakeBindGroup(pipeline.GetBindGroupLayout(0), {{553, a}, {47, b}, {111, c}, {900, out}})},
      {{}});
  ExpectBufferEq({321}, out, 0, "binding numbers 553, 47, 111, 900");
}

}  // namespace

int main() {
  Init();
  align = DeviceLimits().minUniformBufferOffsetAlignment;
  if (DeviceLimits().minStorageBufferOffsetAlignment > align)
    align = DeviceLimits().minStorageBufferOffsetAlignment;
  OffsetOrder();
  DynamicAndFixedKeepTheirPlaces(true);
  DynamicAndFixedKeepTheirPlaces(false);
  AtomicsThroughADynamicOffset();
  GroupsBeforeAndAcrossPipelines();
  LargeSparseBindingNumbers();
  return Finish("bind groups");
}
