// `enable f16;` run through the shim on a device with shader-f16 (lavapipe; SwiftShader lacks it,
// and the tests skip there), against a half-precision reference written here: IEEE binary16 with
// round-to-nearest-even, from the bits of a double (independent of the translator's rounding).
#include <cmath>
#include <cstring>
#include <random>

#include "feature_test.h"

namespace shim_test {
namespace {

// The binary16 nearest `v` (ties to even); beyond the largest half, an infinity.
uint16_t ToHalf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << 15);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0x7ff) return sign | 0x7c00 | ((bits & 0xfffffffffffffull) ? 0x200 : 0);
  if (biased == 0) return sign;  // double subnormals are far below the smallest half
  int e = biased - 1023;
  const uint64_t m = (bits & 0xfffffffffffffull) | (1ull << 52);  // v = m * 2^(e - 52)
  // Normal halves keep 11 significant bits; subnormals count units of 2^-24.
  const int shift = e >= -14 ? 42 : 28 - e;
  if (shift > 60) return sign;
  uint64_t q = m >> shift;
  const uint64_t rest = m & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rest > halfway || (rest == halfway && (q & 1))) ++q;
  if (e < -14) return static_cast<uint16_t>(sign | q);  // q == 1024 is the smallest normal
  if (q == 2048) q = 1024, ++e;
  if (e > 15) return sign | 0x7c00;
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | (q & 0x3ff));
}

double FromHalf(uint16_t h) {
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  if (e == 0) return s * std::ldexp(m, -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(m + 1024, e - 25);
}

bool Subnormal(uint16_t h) {
  return (h & 0x7c00) == 0 && (h & 0x3ff) != 0;
}

class F16 : public FeatureTest {
 protected:
  void SetUp() override {
    FeatureTest::SetUp();
    if (!UseDeviceWith({wgpu::FeatureName::ShaderF16}))
      GTEST_SKIP() << "the adapter has no shader-f16";
  }
};

TEST(HalfReference, RoundsToNearestEven) {
  EXPECT_EQ(ToHalf(1.0), 0x3c00);
  EXPECT_EQ(ToHalf(65504.0), 0x7bff);
  EXPECT_EQ(ToHalf(65519.99), 0x7bff);
  EXPECT_EQ(ToHalf(65520.0), 0x7c00);                       // the tie rounds to even: infinity
  EXPECT_EQ(ToHalf(1.0 + std::ldexp(1, -11)), 0x3c00);      // tie, down to even
  EXPECT_EQ(ToHalf(1.0 + 3 * std::ldexp(1, -11)), 0x3c02);  // tie, up to even
  EXPECT_EQ(ToHalf(std::ldexp(1, -24)), 0x0001);            // smallest subnormal
  EXPECT_EQ(ToHalf(std::ldexp(1, -25)), 0x0000);            // its half: tie to even (0)
  EXPECT_EQ(ToHalf(-0.1), 0xae66);
  for (uint32_t h = 0; h < 0x7c00; ++h) EXPECT_EQ(ToHalf(FromHalf(static_cast<uint16_t>(h))), h);
}

// + - * are correctly rounded in WGSL; / within 2.5 ULP; f32 <-> f16 conversions round (the
// device to nearest even: WGSL allows either neighbour, lavapipe picks the nearest); results
// WGSL lets a device flush (subnormals) may be zero.
TEST_F(F16, ArithmeticAndConversionsMatchTheHalfReference) {
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> exponent(-6, 6), mantissa(0, 1023), sign(0, 1);
  const auto randomHalf = [&] {
    return static_cast<uint16_t>((sign(rng) << 15) | ((exponent(rng) + 15) << 10) | mantissa(rng));
  };
  constexpr size_t kPairs = 4096;
  std::vector<uint16_t> in(2 * kPairs);
  for (auto& h : in) h = randomHalf();
  in[0] = 0x3c00, in[1] = 0x3c00;   // 1 - 1 = +0
  std::vector<float> wide(kPairs);  // f32 -> f16: ties between neighbours and random values
  for (size_t i = 0; i < kPairs; ++i) {
    const uint16_t h = static_cast<uint16_t>(randomHalf() & 0x7fff);
    wide[i] = i % 2 ? static_cast<float>(FromHalf(h) + std::ldexp(FromHalf(h), -11))  // a tie
                    : static_cast<float>(FromHalf(h)) * (1.0f + 0.3f * static_cast<float>(i % 7));
  }
  const std::string wgsl = R"(enable f16;
@group(0) @binding(0) var<storage, read> a : array<vec2h>;
@group(0) @binding(1) var<storage, read> w : array<f32>;
@group(0) @binding(2) var<storage, read_write> o : array<f16>;
@group(0) @binding(3) var<storage, read_write> back : array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3u) {
  let i = id.x;
  let x = a[i].x;
  let y = a[i].y;
  o[i * 6u] = x + y;
  o[i * 6u + 1u] = x - y;
  o[i * 6u + 2u] = x * y;
  o[i * 6u + 3u] = x / y;
  o[i * 6u + 4u] = f16(w[i]);
  let v = vec4h(x, y, x, y) * vec4h(y, x, -y, 2.0h);
  o[i * 6u + 5u] = v.z;
  back[i] = f32(x);
}
)";
  auto a = Upload(in, wgpu::BufferUsage::Storage, "a");
  auto w = Upload(wide, wgpu::BufferUsage::Storage, "w");
  auto o = MakeBuffer(kPairs * 6 * 2, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  auto back =
      MakeBuffer(kPairs * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "back");
  ASSERT_EQ(Run(wgsl, {a, w, o, back}, kPairs / 64), "");
  const auto got = Read<uint16_t>(o, kPairs * 6);
  const auto widened = Read<float>(back, kPairs);
  int exactDivisions = 0;
  for (size_t i = 0; i < kPairs; ++i) {
    const double x = FromHalf(in[2 * i]), y = FromHalf(in[2 * i + 1]);
    SCOPED_TRACE("x " + std::to_string(x) + " y " + std::to_string(y));
    const double exact[] = {x + y, x - y, x * y};
    for (int k = 0; k < 3; ++k) {
      const uint16_t want = ToHalf(exact[k]), have = got[6 * i + k];
      if (Subnormal(want) && (have & 0x7fff) == 0) continue;  // flushed
      EXPECT_EQ(have, want) << "op "
                            << "+-*"[k];
    }
    const uint16_t q = got[6 * i + 3];
    const double ulp = std::ldexp(1.0, std::ilogb(x / y) - 10);
    EXPECT_LE(std::fabs(FromHalf(q) - x / y), 2.5 * ulp) << "x / y";
    exactDivisions += q == ToHalf(x / y);
    EXPECT_EQ(got[6 * i + 4], ToHalf(wide[i])) << "f16(" << wide[i] << ")";
    EXPECT_EQ(got[6 * i + 5], ToHalf(FromHalf(ToHalf(x * -y)))) << "vector product";
    EXPECT_EQ(static_cast<double>(widened[i]), x) << "f32(f16)";
  }
  // lavapipe divides correctly rounded; WGSL would allow less.
  RecordProperty("exact_divisions", exactDivisions);
}

// Constants fold in f16: each operation rounds (1 + 0.0004 is 1 in f16, twice), which one
// rounding of the exact sum would not give (1.0008 rounds to 1 + 2^-10); conversions of
// constants round too.
TEST_F(F16, ConstantsFoldInHalfPrecision) {
  const std::string wgsl = R"(enable f16;
@group(0) @binding(0) var<storage, read_write> o : array<f16>;
const stepwise = 1.0h + 0.0004h + 0.0004h;
const third = 1.0h / 3.0h;
const big = f16(65519.0f);
@compute @workgroup_size(1) fn main() {
  o[0] = stepwise;
  o[1] = third;
  o[2] = big;
  o[3] = f16(0.1) * 3.0h;
}
)";
  auto o = MakeBuffer(8, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  ASSERT_EQ(Run(wgsl, {o}, 1), "");
  const auto got = Read<uint16_t>(o, 4);
  EXPECT_EQ(got[0], 0x3c00);
  EXPECT_NE(ToHalf(1.0 + 0.0004 + 0.0004), 0x3c00);  // what one rounding would give
  EXPECT_EQ(got[1], ToHalf(1.0 / 3.0));
  EXPECT_EQ(got[2], 0x7bff);
  EXPECT_EQ(got[3], ToHalf(FromHalf(ToHalf(0.1)) * 3.0));
}

// WGSL's f16 layouts in storage and uniform buffers: f16 at 0, vec3h at 8 (align 8, size 6),
// f16 at 14, mat2x2h at 16 (columns 4 bytes apart); 24 bytes.
TEST_F(F16, LayoutsInStorageAndUniformBuffers) {
  const std::string wgsl = R"(enable f16;
struct S { a : f16, v : vec3h, b : f16, m : mat2x2h }
struct U { a : f16, v : vec3h, b : f16 }
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() {
  s.a = u.b;
  s.v = u.v * 2.0h;
  s.b = u.a;
  s.m = mat2x2h(1.0h, 2.0h, 3.0h, 4.0h) * mat2x2h(u.a, 0.0h, 0.0h, u.a);
}
)";
  std::vector<uint16_t> uniform(8, 0);
  uniform[0] = ToHalf(1.5);                                                // a @ 0
  uniform[4] = ToHalf(1), uniform[5] = ToHalf(2), uniform[6] = ToHalf(3);  // v @ 8
  uniform[7] = ToHalf(-0.25);                                              // b @ 14
  auto u = Upload(uniform, wgpu::BufferUsage::Uniform, "u");
  auto s = MakeBuffer(24, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "s");
  ASSERT_EQ(Run(wgsl, {u, s}, 1), "");
  const auto got = Read<uint16_t>(s, 12);
  EXPECT_EQ(got[0], ToHalf(-0.25));
  EXPECT_EQ(got[4], ToHalf(2));
  EXPECT_EQ(got[5], ToHalf(4));
  EXPECT_EQ(got[6], ToHalf(6));
  EXPECT_EQ(got[7], ToHalf(1.5));
  const double m[] = {1.5, 3, 4.5, 6};  // column-major
  for (int k = 0; k < 4; ++k) EXPECT_EQ(got[8 + k], ToHalf(m[k])) << "m element " << k;
  for (int pad : {1, 2, 3}) EXPECT_EQ(got[pad], 0) << "padding at byte " << 2 * pad;
}

// mat2x2<f16>(m) of a mat2x2<f32>: each element rounded to f16, and back exactly.
TEST_F(F16, MatrixConversionsRoundEachElement) {
  const std::string wgsl = R"(enable f16;
@group(0) @binding(0) var<storage, read_write> m : mat2x2<f32>;
@group(0) @binding(1) var<storage, read_write> h : mat2x2<f16>;
@group(0) @binding(2) var<storage, read_write> back : mat2x2<f32>;
@compute @workgroup_size(1) fn main() {
  h = mat2x2<f16>(m);
  back = mat2x2f(h);
}
)";
  const std::vector<float> m = {1.0f / 3, -2.7182817f, 1000.1f, 0.000123f};
  auto bm = Upload(m, wgpu::BufferUsage::Storage, "m");
  auto bh = MakeBuffer(8, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "h");
  auto bb = MakeBuffer(16, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "back");
  ASSERT_EQ(Run(wgsl, {bm, bh, bb}, 1), "");
  const auto h = Read<uint16_t>(bh, 4);
  const auto back = Read<float>(bb, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(h[i], ToHalf(m[i])) << i;
    EXPECT_EQ(static_cast<double>(back[i]), FromHalf(ToHalf(m[i]))) << i;
  }
}

// bitcast between f16 vectors and 32-bit values keeps the bits (component 0 in the low half),
// modf/frexp of f16 scalars and vectors, and an f16 override set by a pipeline constant (rounded
// to the nearest f16, as WebGPU converts it) or left at its default.
TEST_F(F16, BitcastsModfFrexpAndOverrides) {
  const std::string wgsl = R"(enable f16;
override h : f16 = 1.5h;
@group(0) @binding(0) var<storage, read> a : array<u32, 4>;
@group(0) @binding(1) var<storage, read_write> o : array<u32, 6>;
@group(0) @binding(2) var<storage, read_write> p : array<f16, 12>;
@compute @workgroup_size(1) fn main() {
  let v2 = bitcast<vec2<f16>>(a[0]);
  p[0] = v2.x;
  p[1] = v2.y;
  o[0] = bitcast<u32>(v2 * 2.0h);
  let v4 = bitcast<vec4<f16>>(vec2<u32>(a[1], a[2]));
  p[2] = v4.x;
  p[3] = v4.w;
  o[1] = u32(bitcast<vec2<i32>>(v4 + vec4<f16>(1.0h)).y);
  o[2] = bitcast<u32>(bitcast<f32>(bitcast<vec2<f16>>(a[3])));
  let m = modf(vec2<f16>(v2.x, -v2.y));
  p[4] = m.fract.x;
  p[5] = m.whole.x;
  p[6] = m.fract.y;
  p[7] = m.whole.y;
  let f = frexp(h);
  p[8] = f.fract;
  o[3] = bitcast<u32>(f.exp);
  let g = frexp(vec2<f16>(v4.y, 0.0h));
  p[9] = g.fract.x;
  o[4] = bitcast<u32>(g.exp.x);
  o[5] = bitcast<u32>(g.exp.y);
  p[10] = modf(h).whole;
  p[11] = h;
}
)";
  const auto pack = [](uint16_t lo, uint16_t hi) { return uint32_t{lo} | uint32_t{hi} << 16; };
  const std::vector<uint32_t> in = {pack(ToHalf(2.75), ToHalf(1.25)),
                                    pack(ToHalf(-3.5), ToHalf(96.0)),
                                    pack(ToHalf(0.5), ToHalf(7.0)), 0x40490fdbu};
  auto a = Upload(in, wgpu::BufferUsage::Storage, "a");
  for (double constant : {0.3, -1000.7, std::nan("")}) {
    const bool set = !std::isnan(constant);  // nan: no constant, the default 1.5
    SCOPED_TRACE(set ? "h = " + std::to_string(constant) : std::string("h at its default"));
    auto o = MakeBuffer(24, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
    auto p = MakeBuffer(24, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "p");
    std::vector<wgpu::ConstantEntry> constants;
    if (set) constants.push_back({.key = "h", .value = constant});
    ASSERT_EQ(Run(wgsl, {a, o, p}, 1, constants), "");
    const auto u = Read<uint32_t>(o, 6);
    const auto half = Read<uint16_t>(p, 12);
    EXPECT_EQ(half[0], ToHalf(2.75));
    EXPECT_EQ(half[1], ToHalf(1.25));
    EXPECT_EQ(u[0], pack(ToHalf(5.5), ToHalf(2.5)));
    EXPECT_EQ(half[2], ToHalf(-3.5));
    EXPECT_EQ(half[3], ToHalf(7.0));
    EXPECT_EQ(u[1], pack(ToHalf(1.5), ToHalf(8.0)));  // v4.zw + 1 as one i32
    EXPECT_EQ(u[2], 0x40490fdbu);                     // through f32 and back: the same bits
    EXPECT_EQ(half[4], ToHalf(0.75));
    EXPECT_EQ(half[5], ToHalf(2.0));
    EXPECT_EQ(half[6], ToHalf(-0.25));
    EXPECT_EQ(half[7], ToHalf(-1.0));
    const double hv = FromHalf(ToHalf(set ? constant : 1.5));
    int exp = 0;
    const double fract = std::frexp(hv, &exp);
    EXPECT_EQ(half[8], ToHalf(fract));
    EXPECT_EQ(static_cast<int32_t>(u[3]), exp);
    EXPECT_EQ(half[9], ToHalf(0.75));  // 96 = 0.75 * 2^7
    EXPECT_EQ(static_cast<int32_t>(u[4]), 7);
    EXPECT_EQ(u[5], 0u);  // frexp(0): 0 * 2^0
    EXPECT_EQ(half[10], ToHalf(std::trunc(hv)));
    EXPECT_EQ(half[11], ToHalf(hv));
  }
  // A constant f16 cannot hold is an error at pipeline creation.
  const std::string error = Run(wgsl, {a, a, a}, 1, {{.key = "h", .value = 65520.0}});
  EXPECT_NE(error.find("\"h\" to 65520"), std::string::npos) << error;
  EXPECT_NE(error.find("f16 cannot represent"), std::string::npos) << error;
}

// f16 matrices in a uniform buffer at WGSL's offsets (columns 4 bytes apart in matCx2<f16>, 8
// in matCx3 and matCx4; std140 would put them 16 apart): read whole, by column and element,
// through a pointer, and as array elements by a run-time index.
TEST_F(F16, MatricesInUniformBuffers) {
  const std::string wgsl = R"(enable f16;
struct U {
  m2 : mat2x2h,                // 0: columns at 0, 4
  a : f16,                     // 8
  m3 : mat3x3h,                // 16: columns at 16, 24, 32 (6 bytes each)
  b : f16,                     // 40
  m4 : mat2x4h,                // 48
  arr : array<mat2x3h, 2>,     // 64, stride 16
}
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<storage, read_write> o : array<f16, 40>;
@group(0) @binding(2) var<storage, read> index : u32;
@compute @workgroup_size(1) fn main() {
  let m2 = u.m2;
  o[0] = m2[0][0]; o[1] = m2[0][1]; o[2] = m2[1][0]; o[3] = m2[1][1];
  o[4] = u.a;
  for (var c = 0u; c < 3u; c++) {
    let col = u.m3[c];
    o[5u + 3u * c] = col.x; o[6u + 3u * c] = col.y; o[7u + 3u * c] = col.z;
  }
  o[14] = u.b;
  let p = &u.m4;
  o[15] = (*p)[0].x; o[16] = (*p)[0].w; o[17] = p[1].y; o[18] = p[1][3];
  let e = u.arr[index];
  o[19] = e[0].x; o[20] = e[0].z; o[21] = e[1].y;
  let v = u.arr[1][1];
  o[22] = v.x; o[23] = v.z;
  let t = transpose(u.m3) * vec3h(1.0h, 0.0h, 0.0h);  // the first row
  o[24] = t.x; o[25] = t.y; o[26] = t.z;
}
)";
  // Each half of the 96 bytes holds its own index + 1 (a multiple of 1 exact in f16).
  std::vector<uint16_t> bytes(48);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = ToHalf(static_cast<double>(i + 1));
  const auto at = [&](size_t byteOffset) { return bytes[byteOffset / 2]; };
  auto ub = Upload(bytes, wgpu::BufferUsage::Uniform, "u");
  auto o = MakeBuffer(80, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  auto index = Upload(std::vector<uint32_t>{0}, wgpu::BufferUsage::Storage, "index");
  ASSERT_EQ(Run(wgsl, {ub, o, index}, 1), "");
  const auto got = Read<uint16_t>(o, 28);  // a multiple of 4 bytes
  const size_t offsets[] = {0,  2,  4,  6,  8,  16, 18, 20, 24, 26, 28, 32, 34, 36,
                            40, 48, 54, 58, 62, 64, 68, 74, 88, 92, 16, 24, 32};
  for (size_t k = 0; k < 27; ++k)
    EXPECT_EQ(got[k], at(offsets[k])) << "o[" << k << "], WGSL byte " << offsets[k];
}

}  // namespace
}  // namespace shim_test
