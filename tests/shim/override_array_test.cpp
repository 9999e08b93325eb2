// var<workgroup> arrays sized by an override: the length comes from the pipeline's constants
// (a specialization constant), indices past it are clamped (the length is unknown when the WGSL
// is translated), and the storage they take is checked against the device's limit with the
// pipeline's value.
#include "feature_test.h"

namespace shim_test {
namespace {

using OverrideArray = FeatureTest;

// Each invocation of a 64-wide workgroup writes a[i] for i < n (strided), then reads a[n - 1 - j]
// for j < 64 and a[j + n] (past the end: clamped to a[n - 1]).
const char* kKernel = R"(override n : u32;
override unused = 3;
var<workgroup> a : array<u32, n>;
@group(0) @binding(0) var<storage, read_write> o : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) j : u32) {
  for (var i = j; i < n; i += 64u) { a[i] = i * 10u + 1u; }
  workgroupBarrier();
  o[j] = a[(n - 1u - j) % n];
  o[64u + j] = a[j + n];
}
)";

TEST_F(OverrideArray, LengthComesFromThePipelineConstants) {
  for (const uint32_t n : {1u, 100u, 1000u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto o = MakeBuffer(128 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
    ASSERT_EQ(Run(kKernel, {o}, 1, {{.key = "n", .value = static_cast<double>(n)}}), "");
    const auto got = Read<uint32_t>(o, 128);
    for (uint32_t j = 0; j < 64; ++j) {
      EXPECT_EQ(got[j], ((n - 1 - j) % n) * 10 + 1) << j;
      EXPECT_EQ(got[64 + j], (n - 1) * 10 + 1) << "clamped read " << j + n;
    }
  }
}

TEST_F(OverrideArray, StorageOverTheLimitFailsAtPipelineCreation) {
  wgpu::Limits limits;
  ASSERT_EQ(device.GetLimits(&limits), wgpu::Status::Success);
  const double n = limits.maxComputeWorkgroupStorageSize / 4 + 1;  // one u32 too many
  auto o = MakeBuffer(128 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  const std::string e = Run(kKernel, {o}, 1, {{.key = "n", .value = n}});
  EXPECT_NE(e.find("bytes of workgroup storage, over maxComputeWorkgroupStorageSize"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace shim_test
