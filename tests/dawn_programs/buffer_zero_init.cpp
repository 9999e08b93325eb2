// Dawn's BufferZeroInitTests (the compute cases), re-checked on the shim: a buffer never written
// reads as zeros when its first use is a uniform, read-only storage or storage binding (the whole
// buffer, or a range 256 bytes in), and a storage binding's writes land among those zeros; an
// indirect buffer never written dispatches nothing; a zero-sized dispatch before a dispatch that
// reads a fresh buffer changes nothing. Buffers filled with garbage and destroyed first leave
// their memory to the allocator, so a fresh buffer that was not cleared would show it.
#include "e2e.h"

using namespace e2e;

namespace {

// verdict = 1 when the bound vec4u is all zeros, else 2.
const char kUniformIsZero[] = R"(
@group(0) @binding(0) var<uniform> bound : vec4u;
@group(0) @binding(1) var<storage, read_write> verdict : u32;
@compute @workgroup_size(1) fn main() {
  verdict = select(2u, 1u, all(bound == vec4u()));
}
)";
const char kReadOnlyIsZero[] = R"(
@group(0) @binding(0) var<storage, read> bound : vec4u;
@group(0) @binding(1) var<storage, read_write> verdict : u32;
@compute @workgroup_size(1) fn main() {
  verdict = select(2u, 1u, all(bound == vec4u()));
}
)";
// Reads the two vec4u, then writes two words among them.
const char kStorageIsZero[] = R"(
@group(0) @binding(0) var<storage, read_write> bound : array<vec4u, 2>;
@group(0) @binding(1) var<storage, read_write> verdict : u32;
@compute @workgroup_size(1) fn main() {
  verdict = select(2u, 1u, all(bound[0] == vec4u()) && all(bound[1] == vec4u()));
  bound[0].x = 10u;
  bound[1].y = 20u;
}
)";

void LeaveGarbageBehind() {
  for (int i = 0; i < 4; ++i) {
    wgpu::Buffer dirty =
        BufferFrom(std::vector<uint32_t>(1024, 0xabababab), wgpu::BufferUsage::Storage);
    dirty.Destroy();
  }
}

// Binds `size` bytes of a fresh buffer at `offset` as the kernel's first use of it.
void BoundFirst(const char* name, const char* wgsl, wgpu::BufferUsage usage, uint64_t offset,
                uint64_t size, std::vector<uint32_t> expected) {
  LeaveGarbageBehind();
  const uint64_t bufferSize = offset + size + (offset ? 16 : 0);
  wgpu::Buffer fresh = CreateBuffer(bufferSize, usage | wgpu::BufferUsage::CopySrc);
  wgpu::Buffer verdict = BufferFrom({0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::ComputePipeline pipeline = Pipeline(wgsl);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(
      0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, fresh, offset, size}, {1, verdict}}));
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  const std::string where = std::string(name) + (offset ? " (a range at 256)" : " (whole buffer)");
  ExpectBufferEq({1}, verdict, 0, where + ": the shader saw zeros");
  ExpectBufferEq(expected, fresh, 0, where + ": buffer contents");
}

void FreshIndirectBuffer() {
  LeaveGarbageBehind();
  wgpu::ComputePipeline pipeline = Pipeline(R"(
@group(0) @binding(0) var<storage, read_write> ran : u32;
@compute @workgroup_size(1) fn main() { ran = 1u; }
)");
  wgpu::Buffer args = CreateBuffer(12, wgpu::BufferUsage::Indirect | wgpu::BufferUsage::CopySrc);
  wgpu::Buffer ran = BufferFrom({0}, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, ran}}));
  pass.DispatchWorkgroupsIndirect(args, 0);
  pass.End();
  Submit(encoder);
  ExpectBufferEq({0}, ran, 0, "a fresh indirect buffer dispatches nothing");
  ExpectBufferEq({0, 0, 0}, args, 0, "a fresh indirect buffer holds zeros");
}

void ZeroDispatchBeforeARead() {
  LeaveGarbageBehind();
  wgpu::ComputePipeline pipeline = Pipeline(R"(
@group(0) @binding(0) var<storage, read> src : array<u32>;
@group(0) @binding(1) var<storage, read_write> dst : array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  for (var i = 0u; i < arrayLength(&dst); i++) { dst[i] = src[i] + 1u; }
}
)");
  const std::vector<uint32_t> zeros(64, 0);
  wgpu::Buffer written = BufferFrom(zeros, wgpu::BufferUsage::Storage);
  wgpu::Buffer fresh = CreateBuffer(256, wgpu::BufferUsage::Storage);
  wgpu::Buffer out = BufferFrom(zeros, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, written}, {1, out}}));
  pass.DispatchWorkgroups(0, 1, 1);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, fresh}, {1, out}}));
  pass.DispatchWorkgroups(1, 1, 1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq(std::vector<uint32_t>(64, 1), out, 0,
                 "a zero-sized dispatch, then a read of a fresh buffer");
}

}  // namespace

int main() {
  Init();
  for (uint64_t offset : {0, 256}) {
    std::vector<uint32_t> zeros((offset + 16 + (offset ? 16 : 0)) / 4, 0);
    BoundFirst("uniform", kUniformIsZero, wgpu::BufferUsage::Uniform, offset, 16, zeros);
    BoundFirst("read-only storage", kReadOnlyIsZero, wgpu::BufferUsage::Storage, offset, 16, zeros);
    std::vector<uint32_t> written((offset + 32 + (offset ? 16 : 0)) / 4, 0);
    written[offset / 4] = 10;
    written[offset / 4 + 5] = 20;
    BoundFirst("storage", kStorageIsZero, wgpu::BufferUsage::Storage, offset, 32, written);
  }
  FreshIndirectBuffer();
  ZeroDispatchBeforeARead();
  return Finish("buffer zero init");
}
