// Dawn's ComputeLayoutMemoryBufferTests, re-checked on the shim: a struct holds a field of some
// host-shareable type between two u32 markers; the kernel copies the markers and the field from a
// source buffer (storage, and uniform where the type may live there) into a destination storage
// buffer. Every data byte must arrive where WGSL's memory layout (AlignOf / SizeOf, @align,
// @size) puts it, and every padding byte of the destination, inside the field's type too, must
// keep its old value. Data bytes avoid NaN, infinities and subnormals, so float copies keep them.
#include <algorithm>
#include <string>

#include "e2e.h"

using namespace e2e;

namespace {

struct Range {
  uint32_t offset, size;
};

// A field type: its WGSL, AlignOf and SizeOf, where its data bytes are (the rest is padding),
// the struct declarations it needs, and whether the uniform address space may hold it.
struct FieldType {
  std::string wgsl;
  uint32_t align, size;
  std::vector<Range> data;
  std::string decls = "";
  bool uniform = true;
  std::string attributes = "";  // on the field: @align / @size
};

std::vector<Range> Columns(uint32_t columns, uint32_t stride, uint32_t bytes) {
  std::vector<Range> r;
  for (uint32_t c = 0; c < columns; ++c) r.push_back({c * stride, bytes});
  return r;
}

std::vector<FieldType> Types() {
  return {
      {"f32", 4, 4, {{0, 4}}},
      {"i32", 4, 4, {{0, 4}}},
      {"vec2<f32>", 8, 8, {{0, 8}}},
      {"vec3<f32>", 16, 12, {{0, 12}}},
      {"vec3<u32>", 16, 12, {{0, 12}}},
      {"vec4<f32>", 16, 16, {{0, 16}}},
      {"mat2x2<f32>", 8, 16, {{0, 16}}},
      {"mat3x2<f32>", 8, 24, {{0, 24}}},
      {"mat2x3<f32>", 16, 32, Columns(2, 16, 12)},
      {"mat3x3<f32>", 16, 48, Columns(3, 16, 12)},
      {"mat4x4<f32>", 16, 64, {{0, 64}}},
      {"array<f32, 3>", 4, 12, {{0, 12}}, "", false},  // stride 4: not for uniform
      {"array<vec3<f32>, 3>", 16, 48, Columns(3, 16, 12)},
      {"array<vec4<u32>, 2>", 16, 32, {{0, 32}}},
      {"Inner", 16, 16, {{0, 12}, {12, 4}}, "struct Inner { a : vec3<f32>, b : f32 }\n"},
      {"Gappy", 16, 32, {{0, 4}, {16, 12}}, "struct Gappy { a : u32, b : vec3<u32> }\n"},
      {"array<Gappy, 2>",
       16,
       64,
       {{0, 4}, {16, 12}, {32, 4}, {48, 12}},
       "struct Gappy { a : u32, b : vec3<u32> }\n"},
      {"u32", 32, 4, {{0, 4}}, "", true, "@align(32) "},
      {"u32", 4, 20, {{0, 4}}, "", false, "@size(20) "},
      {"vec3<f32>", 16, 32, {{0, 12}}, "", true, "@size(32) "},
  };
}

uint32_t RoundUp(uint32_t n, uint32_t align) {
  return (n + align - 1) / align * align;
}

// Byte patterns: data bytes 0x20..0x3f (a float made of them is normal and finite), padding bytes
// 0xc0..0xff, each sequence different per buffer.
std::vector<uint8_t> Fill(uint32_t size, const std::vector<Range>& data, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  uint8_t d = seed, p = static_cast<uint8_t>(seed * 3);
  std::vector<bool> isData(size, false);
  for (const Range& r : data)
    for (uint32_t i = 0; i < r.size; ++i) isData[r.offset + i] = true;
  for (uint32_t i = 0; i < size; ++i) {
    if (isData[i])
      bytes[i] = static_cast<uint8_t>(0x20 | ((d += 0x11) & 0x1f));
    else
      bytes[i] = static_cast<uint8_t>(0xc0 | ((p += 0x13) & 0x3f));
  }
  return bytes;
}

std::vector<uint32_t> Words(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

void Check(const FieldType& t, bool uniformSource) {
  // struct Block { header : u32, field : T, footer : u32 }
  const uint32_t fieldOffset = RoundUp(4, t.align);
  const uint32_t footerOffset = fieldOffset + t.size;
  const uint32_t blockAlign = std::max(4u, t.align);
  const uint32_t blockSize =
      RoundUp(footerOffset + 4, uniformSource ? std::max(blockAlign, 16u) : blockAlign);
  std::vector<Range> data = {{0, 4}, {footerOffset, 4}};
  for (const Range& r : t.data) data.push_back({fieldOffset + r.offset, r.size});

  const std::string wgsl =
      t.decls + "struct Block { header : u32, " + t.attributes + "field : " + t.wgsl +
      ", footer : u32 }\n" + "@group(0) @binding(0) var<" +
      (uniformSource ? "uniform" : "storage, read") + "> src : Block;\n" +
      "@group(0) @binding(1) var<storage, read_write> dst : Block;\n"
      "@compute @workgroup_size(1) fn main() {\n"
      "  dst.header = src.header;\n  dst.field = src.field;\n  dst.footer = src.footer;\n}\n";
  const std::vector<uint8_t> source = Fill(blockSize, data, 0x05);
  const std::vector<uint8_t> before = Fill(blockSize, data, 0x0b);
  std::vector<uint8_t> expected = before;
  for (const Range& r : data)
    std::copy_n(source.begin() + r.offset, r.size, expected.begin() + r.offset);

  wgpu::Buffer src = BufferFrom(
      Words(source), uniformSource ? wgpu::BufferUsage::Uniform : wgpu::BufferUsage::Storage);
  wgpu::Buffer dst =
      BufferFrom(Words(before), wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  wgpu::ComputePipeline pipeline = Pipeline(wgsl.c_str());
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, MakeBindGroup(pipeline.GetBindGroupLayout(0), {{0, src}, {1, dst}}));
  pass.DispatchWorkgroups(1);
  pass.End();
  Submit(encoder);
  ExpectBufferEq(Words(expected), dst, 0,
                 std::string(uniformSource ? "uniform " : "storage ") + t.attributes + t.wgsl +
                     " (field at " + std::to_string(fieldOffset) + ", struct size " +
                     std::to_string(blockSize) + ")");
}

}  // namespace

int main() {
  Init();
  for (const FieldType& t : Types()) {
    Check(t, false);
    if (t.uniform) Check(t, true);
  }
  return Finish("compute layout memory");
}
