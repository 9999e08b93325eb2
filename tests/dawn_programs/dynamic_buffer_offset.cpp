// Dawn's DynamicBufferOffsetTests (the compute cases), re-checked on the shim. One bind group mixes
// fixed and dynamic bindings at non-contiguous numbers (0, 1 fixed; 3, 4 dynamic): the shader
// stores fixedUniform.xy into fixedStorage and k * (dynamicUniform.xy + fixedUniform.xy) into the
// dynamic storage binding. The dynamic uniform buffer holds (1, 2) at 0 and (5, 6) one offset
// alignment later, so offsets (0, 0) give (2, 4) at 0 and offsets (align, align) give (6, 8) at
// align; a pipeline with a second group (k = 2) inherits group 0 and its offsets: (12, 16); the
// last SetBindGroup's offsets win.
#include <string>

#include "e2e.h"

using namespace e2e;

namespace {

std::string Kernel(bool withSecondGroup) {
  std::string wgsl = R"(
struct Pair { value : vec2u }
@group(0) @binding(0) var<uniform> fixedUniform : Pair;
@group(0) @binding(1) var<storage, read_write> fixedStorage : Pair;
@group(0) @binding(3) var<uniform> dynamicUniform : Pair;
@group(0) @binding(4) var<storage, read_write> dynamicStorage : Pair;
)";
  if (withSecondGroup) wgsl += "@group(1) @binding(0) var<uniform> unused : Pair;\n";
  wgsl += std::string("const k = ") + (withSecondGroup ? "2u" : "1u") + R"(;
@compute @workgroup_size(1) fn main() {
  fixedStorage.value = fixedUniform.value;
  dynamicStorage.value = k * (dynamicUniform.value + fixedUniform.value);
}
)";
  return wgsl;
}

wgpu::BindGroupLayout layouts[2];
wgpu::BindGroup groups[2];
wgpu::Buffer dynamicStorage;
uint32_t uniformAlign = 0, storageAlign = 0;

wgpu::ComputePipeline MakePipeline(bool withSecondGroup) {
  const std::string wgsl = Kernel(withSecondGroup);
  return Pipeline(wgsl.c_str(), withSecondGroup ? MakePipelineLayout({layouts[0], layouts[1]})
                                                : MakePipelineLayout({layouts[0]}));
}

void Setup() {
  const wgpu::Limits limits = DeviceLimits();
  uniformAlign = limits.minUniformBufferOffsetAlignment;
  storageAlign = limits.minStorageBufferOffsetAlignment;
  const uint32_t words = std::max(uniformAlign, storageAlign) / 4 + 2;
  std::vector<uint32_t> data(words, 0);
  data[0] = 1;
  data[1] = 2;
  wgpu::Buffer fixedUniform = BufferFrom(data, wgpu::BufferUsage::Uniform);
  data[words - 2] = 5;
  data[words - 1] = 6;
  wgpu::Buffer dynamicUniform = BufferFrom(data, wgpu::BufferUsage::Uniform);
  wgpu::Buffer fixedStorage =
      CreateBuffer(words * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  dynamicStorage = CreateBuffer(words * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc |
                                               wgpu::BufferUsage::CopyDst);
  using T = wgpu::BufferBindingType;
  layouts[0] =
      MakeLayout({{0, T::Uniform}, {1, T::Storage}, {3, T::Uniform, true}, {4, T::Storage, true}});
  groups[0] = MakeBindGroup(layouts[0], {{0, fixedUniform, 0, 8},
                                         {1, fixedStorage, 0, 8},
                                         {3, dynamicUniform, 0, 8},
                                         {4, dynamicStorage, 0, 8}});
  layouts[1] = MakeLayout({{0, T::Uniform}});
  groups[1] = MakeBindGroup(layouts[1], {{0, BufferFrom(data, wgpu::BufferUsage::Uniform), 0, 8}});
}

void Basic() {
  wgpu::ComputePipeline pipeline = MakePipeline(false);
  const uint32_t offsets[] = {0, 0};
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, groups[0], 2, offsets);
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq({2, 4}, dynamicStorage, 0, "offsets (0, 0)");
}

void NonZeroOffsets() {
  wgpu::ComputePipeline pipeline = MakePipeline(false);
  const uint32_t offsets[] = {uniformAlign, storageAlign};
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, groups[0], 2, offsets);
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq({6, 8}, dynamicStorage, storageAlign, "offsets (align, align)");
}

void InheritedAcrossPipelines() {
  wgpu::ComputePipeline first = MakePipeline(false);
  wgpu::ComputePipeline second = MakePipeline(true);
  const uint32_t offsets[] = {uniformAlign, storageAlign};
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(first);
  pass.SetBindGroup(0, groups[0], 2, offsets);
  pass.DispatchWorkgroups(1);
  pass.SetPipeline(second);  // group 0 and its offsets stay bound
  pass.SetBindGroup(1, groups[1]);
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq({12, 16}, dynamicStorage, storageAlign, "offsets inherited by the next pipeline");
}

void LastOffsetsWin() {
  wgpu::ComputePipeline pipeline = MakePipeline(false);
  const uint32_t offsets[] = {uniformAlign, storageAlign};
  const uint32_t zeros[] = {0, 0};
  wgpu::Buffer clear = BufferFrom(std::vector<uint32_t>(2, 0), wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(clear, 0, dynamicStorage, 0, 8);  // earlier cases wrote there
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, groups[0], 2, offsets);
  pass.DispatchWorkgroups(1);
  pass.SetBindGroup(0, groups[0], 2, zeros);
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq({2, 4}, dynamicStorage, 0, "the second SetBindGroup's offsets");
}

}  // namespace

int main() {
  Init();
  Setup();
  Basic();
  NonZeroOffsets();
  InheritedAcrossPipelines();
  LastOffsetsWin();
  return Finish("dynamic buffer offsets");
}
