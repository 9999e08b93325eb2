// Dawn's ComputeSharedMemoryTests, re-checked on the shim: invocations of one workgroup take turns
// on a var<workgroup> counter between barriers (11 turns: 11); a struct holding a matrix, a
// matrix, an array and a vector in workgroup memory are written by one invocation and read back by
// another; workgroup memory of a struct with an array and an atomic starts zeroed.
#include <bit>

#include "e2e.h"

using namespace e2e;

namespace {

const char kTurns[] = R"(
const kTurns : u32 = 11u;
struct Out { total : u32 }
@group(0) @binding(0) var<storage, read_write> out : Out;
var<workgroup> counter : u32;

@compute @workgroup_size(4, 4, 1)
fn main(@builtin(local_invocation_id) lid : vec3u) {
  let me = lid.y * 4u + lid.x;
  if (me == 0u) { counter = 0u; }
  workgroupBarrier();
  for (var turn = 0u; turn < kTurns; turn++) {
    if (turn == me) { counter += 1u; }
    workgroupBarrier();
  }
  if (me == 0u) { out.total = counter; }
}
)";

const char kAssorted[] = R"(
struct HasMatrix { m : mat2x2<f32> }
struct Out {
  s : HasMatrix,
  m : mat2x2<f32>,
  a : array<u32, 4>,
  v : vec4f,
}
@group(0) @binding(0) var<storage, read_write> out : Out;
var<workgroup> wgStruct : HasMatrix;
var<workgroup> wgMatrix : mat2x2<f32>;
var<workgroup> wgArray : array<u32, 4>;
var<workgroup> wgVector : vec4f;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) me : u32) {
  if (me == 0u) {
    wgStruct.m = mat2x2<f32>(vec2f(1.0, 2.0), vec2f(3.0, 4.0));
    wgMatrix = mat2x2<f32>(vec2f(5.0, 6.0), vec2f(7.0, 8.0));
    wgArray = array<u32, 4>(9u, 10u, 11u, 12u);
    wgVector = vec4f(13.0, 14.0, 15.0, 16.0);
  }
  workgroupBarrier();
  if (me == 1u) {
    out.s = wgStruct;
    out.m = wgMatrix;
    out.a = wgArray;
    out.v = wgVector;
  }
}
)";

const char kZeroed[] = R"(
struct Shared {
  items : array<u32, 64>,
  corner : vec4u,
  hits : atomic<u32>,
}
@group(0) @binding(0) var<storage, read_write> out : array<u32, 64>;
var<workgroup> wg : Shared;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) me : u32) {
  // Read before anything is written: WGSL zero-initializes workgroup memory.
  out[me] = wg.items[me] + wg.corner[me % 4u] + atomicLoad(&wg.hits) + 1u;
}
)";

wgpu::Buffer Run(const char* wgsl, uint64_t size) {
  wgpu::ComputePipeline pipeline = Pipeline(wgsl);
  wgpu::Buffer out = CreateBuffer(size, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, out}}));
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  return out;
}

}  // namespace

int main() {
  Init();
  ExpectBufferEq({11}, Run(kTurns, 4), 0, "turns on a workgroup counter");

  std::vector<uint32_t> assorted;
  for (float f : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f})
    assorted.push_back(std::bit_cast<uint32_t>(f));
  for (uint32_t u : {9u, 10u, 11u, 12u}) assorted.push_back(u);
  for (float f : {13.f, 14.f, 15.f, 16.f}) assorted.push_back(std::bit_cast<uint32_t>(f));
  ExpectBufferEq(assorted, Run(kAssorted, 64), 0,
                 "struct, matrix, array and vector in workgroup memory");

  ExpectBufferEq(std::vector<uint32_t>(64, 1), Run(kZeroed, 256), 0,
                 "workgroup memory starts zeroed");
  return Finish("compute shared memory");
}
