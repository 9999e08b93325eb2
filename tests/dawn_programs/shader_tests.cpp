// Dawn's ShaderTests (compute cases), re-checked on the shim: log2 truncated to u32 against the
// CPU; pipeline-overridable constants of each type, set by name or by numeric @id (1 included),
// left at their defaults or at zero, an f32 one keeping f32 precision; a user function named min()
// that the robustness clamping must not call; matrices passed by value; a private struct variable
// with an initializer; pointer parameters into the function, workgroup, private and uniform
// address spaces.
#include <bit>
#include <cmath>
#include <numeric>

#include "e2e.h"

using namespace e2e;

namespace {

// One dispatch of `pipeline` with `bindings` as group 0.
void Run(const wgpu::ComputePipeline& pipeline, std::initializer_list<Binding> bindings) {
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), bindings));
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
}

wgpu::Buffer Output(uint32_t words) {
  return BufferFrom(std::vector<uint32_t>(words, 0xcdcdcdcd),
                    wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
}

wgpu::ComputePipeline WithConstants(const char* wgsl,
                                    const std::vector<wgpu::ConstantEntry>& constants) {
  wgpu::ComputePipelineDescriptor desc{.compute = {.module = Shader(wgsl),
                                                   .constantCount = constants.size(),
                                                   .constants = constants.data()}};
  return device.CreateComputePipeline(&desc);
}

void Log2() {
  const float inputs[] = {1,  2,  3,   4,   7,   8,   15,  16,  31,           32,
                          63, 64, 127, 128, 255, 256, 511, 512, 4294967295.0f};
  std::string wgsl =
      "@group(0) @binding(0) var<storage, read_write> out : array<u32, 19>;\n"
      "@compute @workgroup_size(1) fn main() {\n  let nudge : f32 = 1.0001;\n";
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < 19; ++i) {
    char line[96];
    std::snprintf(line, sizeof line, "  out[%u] = u32(log2(%.1f * nudge));\n", i,
                  double(inputs[i]));
    wgsl += line;
    expected.push_back(static_cast<uint32_t>(std::log2(inputs[i] * 1.0001f)));
  }
  wgsl += "}\n";
  wgpu::Buffer out = Output(19);
  Run(Pipeline(wgsl.c_str()), {{0, out}});
  ExpectBufferEq(expected, out, 0, "log2");
}

void ConstantsByName() {
  const char wgsl[] = R"(
override b0 : bool;
override b1 : bool = false;
override f2 : f32;
override f3 : f32 = 0.0;
override f4 : f32 = 4.0;
override i5 : i32;
override i6 : i32 = 0;
override i7 : i32 = 7;
override u8 : u32;
override u9 : u32 = 0u;
override u10 : u32 = 10u;
@group(0) @binding(0) var<storage, read_write> out : array<u32, 11>;
@compute @workgroup_size(1) fn main() {
  out = array<u32, 11>(u32(b0), u32(b1), u32(f2), u32(f3), u32(f4), u32(i5), u32(i6), u32(i7),
                       u8, u9, u10);
}
)";
  // f4, i7 and u10 keep their defaults; the others are set to their index.
  const std::vector<wgpu::ConstantEntry> constants = {
      {.key = "b0", .value = 0}, {.key = "b1", .value = 1}, {.key = "f2", .value = 2},
      {.key = "f3", .value = 3}, {.key = "i5", .value = 5}, {.key = "i6", .value = 6},
      {.key = "u8", .value = 8}, {.key = "u9", .value = 9}};
  wgpu::Buffer out = Output(11);
  Run(WithConstants(wgsl, constants), {{0, out}});
  std::vector<uint32_t> expected(11);
  std::iota(expected.begin(), expected.end(), 0u);
  ExpectBufferEq(expected, out, 0, "override constants by name");
}

void ConstantsById() {
  const char wgsl[] = R"(
@id(1001) override first : u32;
@id(1) override second : u32 = 0u;
@id(1003) override third : u32 = 3u;
@id(1004) override fourth : u32;
@group(0) @binding(0) var<storage, read_write> out : array<u32, 4>;
@compute @workgroup_size(1) fn main() {
  out = array<u32, 4>(first, second, third, fourth);
}
)";
  const std::vector<wgpu::ConstantEntry> constants = {
      {.key = "1001", .value = 1}, {.key = "1", .value = 2}, {.key = "1004", .value = 0}};
  wgpu::Buffer out = Output(4);
  Run(WithConstants(wgsl, constants), {{0, out}});
  ExpectBufferEq({1, 2, 3, 0}, out, 0, "override constants by numeric id");
}

void ConstantPrecision() {
  const char wgsl[] = R"(
@id(7) override short : f32;
@id(8) override long : f32;
@group(0) @binding(0) var<storage, read_write> out : array<f32, 2>;
@compute @workgroup_size(1) fn main() {
  out = array<f32, 2>(short, long);
}
)";
  const double kShort = 3.14159, kLong = 3.141592653589793238;
  const std::vector<wgpu::ConstantEntry> constants = {{.key = "7", .value = kShort},
                                                      {.key = "8", .value = kLong}};
  wgpu::Buffer out = Output(2);
  Run(WithConstants(wgsl, constants), {{0, out}});
  ExpectBufferEq({std::bit_cast<uint32_t>(float(kShort)), std::bit_cast<uint32_t>(float(kLong))},
                 out, 0, "f32 override precision");
}

void UserFunctionNamedMin() {
  wgpu::Buffer out = Output(1);
  Run(Pipeline(R"(
fn min(a : u32, b : u32) -> u32 { return 0u; }  // shadows the builtin
@group(0) @binding(0) var<storage, read_write> out : u32;
@compute @workgroup_size(1) fn entry() {
  let unused = min(0u, 1u);
  let pair = array<u32, 2>(1u, 2u);
  let i = 1u;
  out = pair[i];  // bounds clamping must use the builtin min: pair[1]
}
)"),
      {{0, out}});
  ExpectBufferEq({2}, out, 0, "a user function named min");
}

void MatricesByValue() {
  wgpu::Buffer out = Output(4);
  Run(Pipeline(R"(
struct Holder { m : mat2x2<f32> }
fn scaled(m : mat2x2<f32>, k : f32) -> mat2x2<f32> { return m * k; }
fn trace(h : Holder) -> f32 { return h.m[0][0] + h.m[1][1]; }
@group(0) @binding(0) var<storage, read_write> out : array<f32, 4>;
@compute @workgroup_size(1) fn main() {
  var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
  let s = scaled(m, 3.0);
  m[0][0] = 100.0;  // the callee had its own copy
  out = array<f32, 4>(s[0][0], s[1][0], trace(Holder(s)), m[0][0]);
}
)"),
      {{0, out}});
  ExpectBufferEq({std::bit_cast<uint32_t>(3.f), std::bit_cast<uint32_t>(9.f),
                  std::bit_cast<uint32_t>(15.f), std::bit_cast<uint32_t>(100.f)},
                 out, 0, "matrices passed by value");
}

void PrivateStructInitializer() {
  wgpu::Buffer out = Output(1);
  Run(Pipeline(R"(
struct S { i : i32 }
var<private> p = S(42);
@group(0) @binding(0) var<storage, read_write> out : i32;
@compute @workgroup_size(1) fn main() { out = p.i; }
)"),
      {{0, out}});
  ExpectBufferEq({42}, out, 0, "a private struct with an initializer");
}

void PointerParameters() {
  wgpu::Buffer in =
      BufferFrom({1, 2, 3, 4, 4, 3, 2, 1, 2, 4, 1, 3, 4, 1, 2, 3}, wgpu::BufferUsage::Uniform);
  wgpu::Buffer out = Output(16);
  Run(Pipeline(R"(
@group(0) @binding(0) var<uniform> addends : array<vec4i, 4>;
@group(0) @binding(1) var<storage, read_write> out : array<vec4i, 4>;
struct P { v : i32 }
struct W { a : atomic<i32> }
var<private> p0 = P(0);
var<private> p1 = P(10);
var<private> p2 = 20;
var<workgroup> w0 : W;
var<workgroup> w1 : atomic<i32>;
fn total(f : ptr<function, i32>, w : ptr<workgroup, atomic<i32>>, p : ptr<private, i32>,
         u : ptr<uniform, vec4i>) -> vec4i {
  return vec4i(*f + atomicLoad(w) + *p) + *u;
}
@compute @workgroup_size(1) fn main() {
  atomicStore(&w0.a, 500);
  atomicStore(&w1, 100);
  var f = array<i32, 3>(0, 1000, 2000);
  out[0] = total(&f[2], &w1, &p1.v, &addends[0]);
  out[1] = total(&f[1], &w0.a, &p0.v, &addends[1]);
  out[2] = total(&f[0], &w0.a, &p2, &addends[2]);
  out[3] = total(&f[2], &w1, &p2, &addends[3]);
}
)"),
      {{0, in}, {1, out}});
  // f + w + p, plus each addend row.
  const uint32_t base[4] = {2000 + 100 + 10, 1000 + 500 + 0, 0 + 500 + 20, 2000 + 100 + 20};
  const uint32_t rows[16] = {1, 2, 3, 4, 4, 3, 2, 1, 2, 4, 1, 3, 4, 1, 2, 3};
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < 16; ++i) expected.push_back(base[i / 4] + rows[i]);
  ExpectBufferEq(expected, out, 0, "pointer parameters into four address spaces");
}

}  // namespace

int main() {
  Init();
  Log2();
  ConstantsByName();
  ConstantsById();
  ConstantPrecision();
  UserFunctionNamedMin();
  MatricesByValue();
  PrivateStructInitializer();
  PointerParameters();
  return Finish("shader tests");
}
