// `enable subgroups;` run through the shim on a device with the subgroups feature (lavapipe:
// subgroups of 8; SwiftShader: 4), every builtin function checked against the CPU, given the
// subgroup size the shader reports (within AdapterInfo's range) and lanes laid out along
// local_invocation_index (which the test checks first).
#include <algorithm>
#include <functional>

#include "feature_test.h"

namespace shim_test {
namespace {

class Subgroups : public FeatureTest {
 protected:
  void SetUp() override {
    FeatureTest::SetUp();
    if (!UseDeviceWith({wgpu::FeatureName::Subgroups}))
      GTEST_SKIP() << "the adapter has no subgroups";
  }
};

constexpr uint32_t kWorkgroup = 64, kGroups = 2, kInvocations = kWorkgroup * kGroups;
constexpr uint32_t kOutputs = 24;  // per invocation

const char* kKernel = R"(enable subgroups;
@group(0) @binding(0) var<storage, read> values : array<u32>;
@group(0) @binding(1) var<storage, read_write> o : array<u32>;
@group(0) @binding(2) var<storage, read_write> outf : array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3u,
        @builtin(local_invocation_index) lid : u32,
        @builtin(subgroup_invocation_id) lane : u32,
        @builtin(subgroup_size) size : u32) {
  let i = gid.x;
  let v = values[i];
  let s = i32(v) - 50;
  let at = i * 24u;
  o[at] = lane;
  o[at + 1u] = size;
  o[at + 2u] = subgroupAdd(v);
  o[at + 3u] = subgroupExclusiveAdd(v);
  o[at + 4u] = subgroupInclusiveAdd(v);
  o[at + 5u] = subgroupMul(v);
  o[at + 6u] = subgroupExclusiveMul(v);
  o[at + 7u] = subgroupInclusiveMul(v);
  o[at + 8u] = bitcast<u32>(subgroupMin(s));
  o[at + 9u] = subgroupMax(v);
  o[at + 10u] = subgroupAnd(v) | (subgroupOr(v) << 8u) | (subgroupXor(v) << 16u);
  let ballot = subgroupBallot(v % 3u == 0u);
  o[at + 11u] = ballot.x;
  o[at + 12u] = ballot.y | ballot.z | ballot.w;
  o[at + 13u] = select(0u, 1u, subgroupElect()) | select(0u, 2u, subgroupAll(v < 100u)) |
                select(0u, 4u, subgroupAny(v == 7u)) | select(0u, 8u, subgroupAll(v != 7u));
  o[at + 14u] = subgroupBroadcast(v, 3u);
  o[at + 15u] = subgroupBroadcastFirst(v);
  o[at + 16u] = subgroupShuffle(v, (lane + 5u) % size);
  o[at + 17u] = subgroupShuffleXor(v, 2u);
  o[at + 18u] = subgroupShuffleUp(v, 1u);
  o[at + 19u] = subgroupShuffleDown(v, 1u);
  o[at + 20u] = quadBroadcast(v, 2);
  o[at + 21u] = quadSwapX(v) | (quadSwapY(v) << 8u) | (quadSwapDiagonal(v) << 16u);
  o[at + 22u] = bitcast<u32>(subgroupBroadcast(vec2i(s, -s), 1).y);
  o[at + 23u] = lid;
  outf[i] = subgroupAdd(f32(v) * 0.5);
}
)";

TEST_F(Subgroups, EveryBuiltinMatchesTheCpu) {
  std::vector<uint32_t> values(kInvocations);
  for (uint32_t i = 0; i < kInvocations; ++i) values[i] = (i * 37u + 11u) % 97u + 1u;
  values[9] = 7;  // subgroupAny sees one 7 in the second subgroup
  auto in = Upload(values, wgpu::BufferUsage::Storage, "values");
  auto out = MakeBuffer(kInvocations * kOutputs * 4,
                        wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  auto outf =
      MakeBuffer(kInvocations * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "of");
  ASSERT_EQ(Run(kKernel, {in, out, outf}, kGroups), "");
  const auto o = Read<uint32_t>(out, kInvocations * kOutputs);
  const auto of = Read<float>(outf, kInvocations);
  const uint32_t size = o[1];
  wgpu::AdapterInfo info;
  device.GetAdapterInfo(&info);
  ASSERT_GE(size, info.subgroupMinSize);
  ASSERT_LE(size, info.subgroupMaxSize);
  ASSERT_EQ(kWorkgroup % size, 0u);
  for (uint32_t i = 0; i < kInvocations; ++i) {
    ASSERT_EQ(o[i * kOutputs + 1], size) << "subgroup_size of " << i;
    ASSERT_EQ(o[i * kOutputs], (i % kWorkgroup) % size) << "lanes along local_invocation_index";
    ASSERT_EQ(o[i * kOutputs + 23], i % kWorkgroup);
  }
  for (uint32_t i = 0; i < kInvocations; ++i) {
    const uint32_t lane = i % size, first = i - lane;
    const auto v = [&](uint32_t l) { return values[first + l]; };
    const auto s = [&](uint32_t l) { return static_cast<int32_t>(v(l)) - 50; };
    const auto fold = [&](uint32_t from, uint32_t to, uint32_t init,
                          const std::function<uint32_t(uint32_t, uint32_t)>& f) {
      uint32_t r = init;
      for (uint32_t l = from; l < to; ++l) r = f(r, v(l));
      return r;
    };
    const auto add = [](uint32_t a, uint32_t b) { return a + b; };
    const auto mul = [](uint32_t a, uint32_t b) { return a * b; };  // wraps, as u32
    const uint32_t* got = &o[i * kOutputs];
    SCOPED_TRACE("invocation " + std::to_string(i) + " lane " + std::to_string(lane));
    EXPECT_EQ(got[2], fold(0, size, 0, add));
    EXPECT_EQ(got[3], fold(0, lane, 0, add));
    EXPECT_EQ(got[4], fold(0, lane + 1, 0, add));
    EXPECT_EQ(got[5], fold(0, size, 1, mul));
    EXPECT_EQ(got[6], fold(0, lane, 1, mul));
    EXPECT_EQ(got[7], fold(0, lane + 1, 1, mul));
    int32_t mn = s(0);
    for (uint32_t l = 1; l < size; ++l) mn = std::min(mn, s(l));
    EXPECT_EQ(static_cast<int32_t>(got[8]), mn);
    EXPECT_EQ(got[9], fold(0, size, 0, [](uint32_t a, uint32_t b) { return std::max(a, b); }));
    const uint32_t andV = fold(0, size, ~0u, [](uint32_t a, uint32_t b) { return a & b; });
    const uint32_t orV = fold(0, size, 0, [](uint32_t a, uint32_t b) { return a | b; });
    const uint32_t xorV = fold(0, size, 0, [](uint32_t a, uint32_t b) { return a ^ b; });
    EXPECT_EQ(got[10], andV | (orV << 8) | (xorV << 16));
    uint64_t ballot = 0;
    for (uint32_t l = 0; l < size; ++l) ballot |= uint64_t{v(l) % 3 == 0} << l;
    EXPECT_EQ(got[11], static_cast<uint32_t>(ballot));
    EXPECT_EQ(got[12], static_cast<uint32_t>(ballot >> 32));
    bool all100 = true, any7 = false;
    for (uint32_t l = 0; l < size; ++l) all100 &= v(l) < 100, any7 |= v(l) == 7;
    EXPECT_EQ(got[13],
              (lane == 0 ? 1u : 0u) | (all100 ? 2u : 0u) | (any7 ? 4u : 0u) | (!any7 ? 8u : 0u));
    EXPECT_EQ(got[14], v(3));
    EXPECT_EQ(got[15], v(0));
    EXPECT_EQ(got[16], v((lane + 5) % size));
    EXPECT_EQ(got[17], v(lane ^ 2));
    if (lane >= 1) {  // lane 0's source is outside the subgroup: undefined
      EXPECT_EQ(got[18], v(lane - 1));
    }
    if (lane + 1 < size) {
      EXPECT_EQ(got[19], v(lane + 1));
    }
    const uint32_t quad = lane & ~3u;
    EXPECT_EQ(got[20], v(quad + 2));
    EXPECT_EQ(got[21], v(lane ^ 1) | (v(lane ^ 2) << 8) | (v(lane ^ 3) << 16));
    EXPECT_EQ(static_cast<int32_t>(got[22]), -s(1));
    double sum = 0;  // halves of small integers: exact in any order
    for (uint32_t l = 0; l < size; ++l) sum += v(l) * 0.5;
    EXPECT_EQ(of[i], static_cast<float>(sum));
  }
}

// With shader-f16 as well, subgroup operations take f16 (Dawn's rule: both features need
// Vulkan's shaderSubgroupExtendedTypes).
TEST_F(Subgroups, TakeF16WithShaderF16) {
  if (!UseDeviceWith({wgpu::FeatureName::Subgroups, wgpu::FeatureName::ShaderF16}))
    GTEST_SKIP() << "the adapter has no shader-f16";
  const std::string wgsl = R"(enable f16;
enable subgroups;
@group(0) @binding(0) var<storage, read_write> o : array<f16>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i : u32, @builtin(subgroup_invocation_id) lane : u32) {
  o[i] = subgroupAdd(f16(lane)) + subgroupShuffleXor(f16(i), 1u) * 1024.0h;
}
)";
  auto o = MakeBuffer(64 * 2, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  ASSERT_EQ(Run(wgsl, {o}, 1), "");
  const auto got = Read<uint16_t>(o, 64);
  wgpu::AdapterInfo info;
  device.GetAdapterInfo(&info);
  const uint32_t size = info.subgroupMinSize;
  if (size != info.subgroupMaxSize) GTEST_SKIP() << "subgroup size varies";
  for (uint32_t i = 0; i < 4; ++i) {  // f16 values small enough to be exact: 0x4000 is 2.0
    const double want = size * (size - 1) / 2.0 + (i ^ 1u) * 1024.0;
    const float f = static_cast<float>(want);
    EXPECT_NE(got[i], 0u);
    // 1024 * k + small sum: checked through f32 (every value here is an exact half).
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint32_t e = ((bits >> 23) & 0xff) - 127 + 15;
    const uint16_t half = static_cast<uint16_t>((e << 10) | ((bits >> 13) & 0x3ff));
    EXPECT_EQ(got[i], want == 0 ? 0 : half) << i;
  }
}

}  // namespace
}  // namespace shim_test
