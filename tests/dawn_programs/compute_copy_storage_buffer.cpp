// Dawn's ComputeCopyStorageBufferTests, re-checked on the shim: one invocation per 16-byte
// element copies src to dst through a storage struct holding a sized array of vec4u, a sized array
// of a struct of two vec2u, or a runtime-sized array of vec4u (and, as a whole-value assignment,
// the sized struct at once); dst must equal src word for word.
#include "e2e.h"

using namespace e2e;

namespace {

constexpr uint32_t kElements = 4;
constexpr uint32_t kWords = kElements * 4;

const char kSizedVectors[] = R"(
struct Block { items : array<vec4u, 4> }
@group(0) @binding(0) var<storage, read_write> src : Block;
@group(0) @binding(1) var<storage, read_write> dst : Block;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < 4u) { dst.items[id.x] = src.items[id.x]; }
}
)";

const char kSizedStructs[] = R"(
struct Pair { lo : vec2u, hi : vec2u }
struct Block { items : array<Pair, 4> }
@group(0) @binding(0) var<storage, read_write> src : Block;
@group(0) @binding(1) var<storage, read_write> dst : Block;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < 4u) { dst.items[id.x] = src.items[id.x]; }
}
)";

const char kRuntimeSized[] = R"(
struct Block { items : array<vec4u> }
@group(0) @binding(0) var<storage, read_write> src : Block;
@group(0) @binding(1) var<storage, read_write> dst : Block;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x < arrayLength(&src.items)) { dst.items[id.x] = src.items[id.x]; }
}
)";

const char kWholeStruct[] = R"(
struct Pair { lo : vec2u, hi : vec2u }
struct Block { items : array<Pair, 4> }
@group(0) @binding(0) var<storage, read_write> src : Block;
@group(0) @binding(1) var<storage, read_write> dst : Block;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id : vec3u) {
  if (id.x == 0u) { dst = src; }
}
)";

void Copy(const char* name, const char* wgsl) {
  std::vector<uint32_t> values(kWords);
  for (uint32_t i = 0; i < kWords; ++i) values[i] = (i + 1u) * 0x11111111u;
  const wgpu::BufferUsage usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc;
  wgpu::Buffer src = BufferFrom(values, usage);
  wgpu::Buffer dst = BufferFrom(std::vector<uint32_t>(kWords, 0), usage);
  ExpectBufferEq(values, src, 0, std::string(name) + ": the upload");
  wgpu::ComputePipeline pipeline = Pipeline(wgsl);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0),
                                     {{0, src, 0, kWords * 4}, {1, dst, 0, kWords * 4}}));
  pass.DispatchWorkgroups(kElements);
  pass.End();
  Submit(encoder);
  ExpectBufferEq(values, dst, 0, name);
}

}  // namespace

int main() {
  Init();
  Copy("sized array of vec4u", kSizedVectors);
  Copy("sized array of structs", kSizedStructs);
  Copy("runtime-sized array of vec4u", kRuntimeSized);
  Copy("whole struct assignment", kWholeStruct);
  return Finish("compute copy storage buffer");
}
