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

// A count that is an override-expression: computed at pipeline creation from the constants (or
// the defaults), with WGSL's errors there: a count not above 0, division by zero, an unset
// override; the count itself is no pipeline constant. Single-override counts must be above 0 too.
TEST_F(OverrideArray, ExpressionCountsComeFromThePipelineConstants) {
  const char* kernel = R"(override n : u32;
override k : i32 = 3;
var<workgroup> a : array<u32, n * 2u + u32(k - 2)>;
@group(0) @binding(0) var<storage, read_write> o : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) j : u32) {
  let len = n * 2u + u32(k - 2);
  for (var i = j; i < len; i += 64u) { a[i] = i * 10u + 1u; }
  workgroupBarrier();
  o[j] = a[(len - 1u - j) % len];
  o[64u + j] = a[j + len];
}
)";
  for (const double n : {1.0, 50.0, 500.0}) {
    const uint32_t len = static_cast<uint32_t>(n) * 2 + 1;
    SCOPED_TRACE("n = " + std::to_string(n));
    auto o = MakeBuffer(128 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
    ASSERT_EQ(Run(kernel, {o}, 1, {{.key = "n", .value = n}}), "");
    const auto got = Read<uint32_t>(o, 128);
    for (uint32_t j = 0; j < 64; ++j) {
      EXPECT_EQ(got[j], ((len - 1 - j) % len) * 10 + 1) << j;
      EXPECT_EQ(got[64 + j], (len - 1) * 10 + 1) << "clamped read " << j + len;
    }
  }
  auto o = MakeBuffer(128 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "o");
  const auto error = [&](const char* wgsl, std::vector<wgpu::ConstantEntry> constants) {
    return Run(wgsl, {o}, 1, std::move(constants));
  };
  std::string e = error(kernel, {{.key = "n", .value = 2}, {.key = "k", .value = -1}});
  EXPECT_NE(e.find("cannot evaluate the override-expression 'n * 2u + u32(k - 2)': it overflows"),
            std::string::npos)
      << e;  // 4 + u32(-3)
  e = error(kernel, {{.key = "n", .value = 0}, {.key = "k", .value = 2}});
  EXPECT_NE(e.find("is 0 (it must be greater than 0)"), std::string::npos) << e;
  e = error(kernel, {});
  EXPECT_NE(e.find("does not set override \"n\" (id 0)"), std::string::npos) << e;
  e = error(kernel, {{.key = "n", .value = 1}, {.key = "2046", .value = 5}});
  EXPECT_NE(e.find("sets constant \"2046\", which the shader does not declare"), std::string::npos)
      << e;
  wgpu::Limits limits;
  ASSERT_EQ(device.GetLimits(&limits), wgpu::Status::Success);
  e = error(kernel, {{.key = "n", .value = limits.maxComputeWorkgroupStorageSize / 8.0}});
  EXPECT_NE(e.find("bytes of workgroup storage, over maxComputeWorkgroupStorageSize"),
            std::string::npos)
      << e;
  const char* divides = R"(override n : u32;
var<workgroup> a : array<u32, 64u / n>;
@group(0) @binding(0) var<storage, read_write> o : array<u32>;
@compute @workgroup_size(1) fn main() { a[0] = 1u; o[0] = a[0]; }
)";
  e = error(divides, {{.key = "n", .value = 0}});
  EXPECT_NE(e.find("'64u / n': it divides by zero"), std::string::npos) << e;
  e = error(divides, {});  // n, used only in the count, has no default
  EXPECT_NE(e.find("does not set override \"n\" (id 0) in compute.constants; it has no default "
                   "value and the override-expression '64u / n' uses it"),
            std::string::npos)
      << e;
  e = error(kKernel, {{.key = "n", .value = 0}});
  EXPECT_NE(e.find("sizes a var<workgroup> array by override \"n\" = 0; an array count must be "
                   "greater than 0"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace shim_test
