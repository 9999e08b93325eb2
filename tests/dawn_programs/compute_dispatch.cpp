// Dawn's ComputeDispatchTests, re-checked on the shim: direct and indirect dispatches report the
// grid they ran (through @builtin(num_workgroups), or a uniform holding the same counts); a grid
// with a zero dimension, or an indirect one past maxComputeWorkgroupsPerDimension, runs nothing
// and leaves the output's sentinel; an indirect buffer is never modified; the maximum works in
// each dimension. The output is a vec3u storage variable bound at exactly its 12 bytes.
#include "e2e.h"

using namespace e2e;

namespace {

// The invocation at the grid's far corner writes the grid's size.
const char kWithBuiltin[] = R"(
@group(0) @binding(0) var<storage, read_write> grid : vec3u;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u, @builtin(num_workgroups) count : vec3u) {
  if (all(id + vec3u(1u) == count)) {
    grid = count;
  }
}
)";

// The same, told the grid through a uniform (no num_workgroups builtin).
const char kWithUniform[] = R"(
@group(0) @binding(0) var<uniform> told : vec3u;
@group(0) @binding(1) var<storage, read_write> grid : vec3u;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (all(id + vec3u(1u) == told)) {
    grid = told;
  }
}
)";

const std::vector<uint32_t> kSentinel = {0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu};

wgpu::ComputePipeline withBuiltin, withUniform;

std::string Name(const char* kind, const std::vector<uint32_t>& args, uint64_t offset) {
  return std::string(kind) + " " + Words(args) + " at offset " + std::to_string(offset);
}

void Direct(uint32_t x, uint32_t y, uint32_t z) {
  wgpu::Buffer out = BufferFrom(kSentinel, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(withBuiltin);
  pass.SetBindGroup(0, MakeBindGroup(withBuiltin.GetBindGroupLayout(0), {{0, out, 0, 12}}));
  pass.DispatchWorkgroups(x, y, z);
  pass.End();
  Submit(encoder);
  const bool runs = x != 0 && y != 0 && z != 0;
  ExpectBufferEq(runs ? std::vector<uint32_t>{x, y, z} : kSentinel, out, 0,
                 Name("direct", {x, y, z}, 0));
}

void Indirect(const std::vector<uint32_t>& args, uint64_t offset, bool builtin) {
  const uint32_t max = DeviceLimits().maxComputeWorkgroupsPerDimension;
  const size_t at = offset / 4;
  const std::vector<uint32_t> grid(args.begin() + at, args.begin() + at + 3);
  wgpu::Buffer out = BufferFrom(kSentinel, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::Buffer indirect =
      BufferFrom(args, wgpu::BufferUsage::Indirect | wgpu::BufferUsage::CopySrc);
  wgpu::ComputePipeline pipeline = builtin ? withBuiltin : withUniform;
  wgpu::BindGroup group =
      builtin ? MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, out, 0, 12}})
              : MakeBindGroup(
                    pipeline.GetBindGroupLayout(0),
                    {{0, BufferFrom(grid, wgpu::BufferUsage::Uniform), 0, 12}, {1, out, 0, 12}});
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  pass.DispatchWorkgroupsIndirect(indirect, offset);
  pass.End();
  Submit(encoder);
  bool runs = true;
  for (uint32_t n : grid) runs = runs && n != 0 && n <= max;
  const std::string name = Name(builtin ? "indirect" : "indirect (uniform)", args, offset);
  ExpectBufferEq(runs ? grid : kSentinel, out, 0, name);
  ExpectBufferEq(args, indirect, 0, name + ": indirect buffer unchanged");
}

}  // namespace

int main() {
  Init();
  withBuiltin = Pipeline(kWithBuiltin);
  withUniform = Pipeline(kWithUniform);
  const uint32_t max = DeviceLimits().maxComputeWorkgroupsPerDimension;

  Direct(2, 3, 4);
  Direct(0, 0, 0);
  Direct(0, 1, 1);
  Direct(1, 0, 1);
  Direct(1, 1, 0);
  for (bool builtin : {true, false}) {
    Indirect({2, 3, 4}, 0, builtin);
    Indirect({0, 0, 0}, 0, builtin);
    Indirect({0, 1, 1}, 0, builtin);
    Indirect({1, 0, 1}, 0, builtin);
    Indirect({1, 1, 0}, 0, builtin);
    Indirect({0, 0, 0, 2, 3, 4}, 12, builtin);
    Indirect({1, 2, 3, 4, 5, 6}, 4, builtin);
  }
  // The maximum in each dimension (each alone: all three at once would take long).
  Indirect({max, 3, 4}, 0, true);
  Indirect({2, max, 4}, 0, true);
  Indirect({2, 3, max}, 0, true);
  // Past the maximum: the dispatch is skipped, in any dimension, at any offset.
  for (const std::vector<uint32_t>& over : {std::vector<uint32_t>{max + 1, max + 1, max + 1},
                                            {max + 1, 3, 4},
                                            {2 * max, 3, 4},
                                            {2, max + 1, 4},
                                            {2, 2 * max, 4},
                                            {2, 3, max + 1},
                                            {2, 3, 2 * max}})
    Indirect(over, 0, true);
  for (uint64_t offset : {4, 8, 12}) Indirect({1, 2, 3, max + 1, 4, 5}, offset, true);
  return Finish("compute dispatch");
}
