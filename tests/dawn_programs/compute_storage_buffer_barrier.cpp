// Dawn's ComputeStorageBufferBarrierTests, re-checked on the shim: 100 dispatches that each add
// 0x1234 to every value of a storage buffer, in one pass; the same ping-ponging between two
// buffers (read_write / read_write, read_write / read, uniform / read_write), in one pass and in a
// pass per dispatch; a dispatch whose indirect arguments a dispatch before it wrote, and which
// reads them as storage too. Each result needs the barriers between the dispatches.
#include "e2e.h"

using namespace e2e;

namespace {

constexpr uint32_t kValues = 100;
constexpr uint32_t kIterations = 100;
constexpr uint32_t kStep = 0x1234;

const char kAddInPlace[] = R"(
@group(0) @binding(0) var<storage, read_write> values : array<u32, 100>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  values[id.x] += 0x1234u;
}
)";

// dst = src + step, with src bound as `SRC` (replaced below).
const char kAddStorageToStorage[] = R"(
@group(0) @binding(0) var<storage, read_write> src : array<u32, 100>;
@group(0) @binding(1) var<storage, read_write> dst : array<u32, 100>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  dst[id.x] = src[id.x] + 0x1234u;
}
)";
const char kAddReadOnlyToStorage[] = R"(
@group(0) @binding(0) var<storage, read> src : array<u32, 100>;
@group(0) @binding(1) var<storage, read_write> dst : array<u32, 100>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  dst[id.x] = src[id.x] + 0x1234u;
}
)";
// Uniform arrays need a 16-byte stride: 25 vec4u hold the 100 values.
const char kAddUniformToStorage[] = R"(
@group(0) @binding(0) var<uniform> src : array<vec4u, 25>;
@group(0) @binding(1) var<storage, read_write> dst : array<vec4u, 25>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  dst[id.x] = src[id.x] + vec4u(0x1234u);
}
)";

void AddInPlace() {
  wgpu::Buffer values = BufferFrom(std::vector<uint32_t>(kValues, 0),
                                   wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::ComputePipeline pipeline = Pipeline(kAddInPlace);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, values}}));
  for (uint32_t i = 0; i < kIterations; ++i) pass.DispatchWorkgroups(kValues);
  pass.End();
  Submit(encoder);
  ExpectBufferEq(std::vector<uint32_t>(kValues, kStep * kIterations), values, 0, "add in place");
}

// A = B + step, B = A + step, ... 100 times: A ends at 100 steps, B at 99.
void PingPong(const char* name, const char* wgsl, wgpu::BufferUsage srcUsage,
              uint32_t groupsPerDispatch, bool passPerDispatch) {
  const wgpu::BufferUsage usage =
      wgpu::BufferUsage::Storage | srcUsage | wgpu::BufferUsage::CopySrc;
  wgpu::Buffer a = BufferFrom(std::vector<uint32_t>(kValues, 0), usage);
  wgpu::Buffer b = BufferFrom(std::vector<uint32_t>(kValues, 0), usage);
  wgpu::ComputePipeline pipeline = Pipeline(wgsl);
  wgpu::BindGroup intoB = MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, a}, {1, b}});
  wgpu::BindGroup intoA = MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, b}, {1, a}});
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass;
  for (uint32_t i = 0; i < kIterations; ++i) {
    if (i == 0 || passPerDispatch) {
      pass = encoder.BeginComputePass();
      pass.SetPipeline(pipeline);
    }
    // Odd steps write A, even ones B; the first reads A's zeros into B.
    pass.SetBindGroup(0, i % 2 == 0 ? intoB : intoA);
    pass.DispatchWorkgroups(groupsPerDispatch);
    if (i + 1 == kIterations || passPerDispatch) pass.End();
  }
  Submit(encoder);
  ExpectBufferEq(std::vector<uint32_t>(kValues, kStep * kIterations), a, 0,
                 std::string(name) + ": A");
  ExpectBufferEq(std::vector<uint32_t>(kValues, kStep * (kIterations - 1)), b, 0,
                 std::string(name) + ": B");
}

void IndirectArgumentsWrittenBefore() {
  wgpu::ComputePipeline writeOnes = Pipeline(R"(
@group(0) @binding(0) var<storage, read_write> args : array<u32, 3>;
@compute @workgroup_size(1) fn main() {
  args = array<u32, 3>(1u, 1u, 1u);
}
)");
  wgpu::ComputePipeline readBack = Pipeline(R"(
@group(0) @binding(0) var<storage, read> args : array<u32, 3>;
@group(0) @binding(1) var<storage, read_write> verdict : u32;
@compute @workgroup_size(1) fn main() {
  verdict = select(2u, 1u, args[0] == 1u && args[1] == 1u && args[2] == 1u);
}
)");
  wgpu::Buffer args =
      BufferFrom({0, 0, 0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::Indirect);
  wgpu::Buffer verdict = BufferFrom({0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(writeOnes);
  pass.SetBindGroup(0, MakeBindGroup(writeOnes.GetBindGroupLayout(0), {{0, args}}));
  pass.DispatchWorkgroups(1);
  pass.SetPipeline(readBack);
  pass.SetBindGroup(0, MakeBindGroup(readBack.GetBindGroupLayout(0), {{0, args}, {1, verdict}}));
  pass.DispatchWorkgroupsIndirect(args, 0);  // zeros would dispatch nothing: verdict stays 0
  pass.End();
  Submit(encoder);
  ExpectBufferEq({1}, verdict, 0, "indirect arguments written by the dispatch before");
}

}  // namespace

int main() {
  Init();
  AddInPlace();
  for (bool passPerDispatch : {false, true}) {
    const std::string where = passPerDispatch ? " (a pass per dispatch)" : " (one pass)";
    PingPong(("storage to storage" + where).c_str(), kAddStorageToStorage, wgpu::BufferUsage::None,
             kValues, passPerDispatch);
    PingPong(("read-only storage to storage" + where).c_str(), kAddReadOnlyToStorage,
             wgpu::BufferUsage::None, kValues, passPerDispatch);
    PingPong(("uniform to storage" + where).c_str(), kAddUniformToStorage,
             wgpu::BufferUsage::Uniform, kValues / 4, passPerDispatch);
  }
  IndirectArgumentsWrittenBefore();
  return Finish("compute storage buffer barrier");
}
