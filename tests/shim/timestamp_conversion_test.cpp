// Timestamps on a device whose tick is not a nanosecond: ResolveQuerySet converts them on the GPU.
// WEBGPU_SHIM_TIMESTAMP_PERIOD makes a device assume such a period on a driver whose ticks are
// nanoseconds, so a converted value is a real one times the period. The shader's arithmetic,
// TicksToNs, is checked exactly against 128-bit arithmetic.
#include <webgpu/webgpu.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "feature_test.h"
#include "timestamp_conversion.h"

namespace shim_test {
namespace {

using wgpu::detail::TicksToNs;

__extension__ typedef unsigned __int128 U128;

uint32_t Scale(double period) {
  return static_cast<uint32_t>(std::lround(period * 65536));
}

TEST(TicksToNs, MatchesWideArithmetic) {
  const uint64_t ticks[] = {0,          1,    0xffffffffull, 0x100000000ull, 0x1234567890abcdefull,
                            1ull << 63, ~0ull};
  for (double period : {1.0, 2.5, 10.0, 52.083333, 83.333}) {
    const uint32_t p = Scale(period);
    for (uint64_t t : ticks) {
      const uint64_t expected = static_cast<uint64_t>((U128{t} * p) >> 16);
      EXPECT_EQ(TicksToNs(t, p), expected) << "ticks " << t << ", period " << period;
    }
  }
  EXPECT_EQ(TicksToNs(0, Scale(52.083333)), 0u);
  EXPECT_EQ(TicksToNs(1000, Scale(1.0)), 1000u);
  EXPECT_EQ(TicksToNs(1000, Scale(2.5)), 2500u);
  EXPECT_EQ(TicksToNs(1000, Scale(10.0)), 10000u);
}

constexpr uint32_t kQueries = 70;  // more than one workgroup of the conversion shader
constexpr uint64_t kOffset = 256;
constexpr uint64_t kSize = 1024;

class TimestampConversion : public FeatureTest {
 protected:
  void SetUp() override {
    FeatureTest::SetUp();
    if (!UseDeviceWith({wgpu::FeatureName::TimestampQuery})) GTEST_SKIP() << "no timestamp-query";
    raw = device;
  }
  // A device assuming `period` ns a tick (the variable is read when a device is created).
  wgpu::Device Converting(const char* period) {
    const char* old = std::getenv("WEBGPU_SHIM_TIMESTAMP_PERIOD");
    const std::string saved = old ? old : "";
    setenv("WEBGPU_SHIM_TIMESTAMP_PERIOD", period, 1);
    wgpu::Device d = DeviceWith({wgpu::FeatureName::TimestampQuery});
    if (old)
      setenv("WEBGPU_SHIM_TIMESTAMP_PERIOD", saved.c_str(), 1);
    else
      unsetenv("WEBGPU_SHIM_TIMESTAMP_PERIOD");
    return d;
  }
  // On `d`: an empty pass writing queries 1 (begin) and kQueries - 2 (end) of a set of kQueries,
  // all resolved at kOffset into a buffer of 0xab bytes, then copied in the same encoder (which
  // must see the converted values). Checks the bytes around the range and the copy; returns the
  // values.
  std::vector<uint64_t> Stamps(const wgpu::Device& d) {
    device = d;
    queue = d.GetQueue();
    wgpu::QuerySetDescriptor sd{
        .label = "timestamps", .type = wgpu::QueryType::Timestamp, .count = kQueries};
    wgpu::QuerySet set = device.CreateQuerySet(&sd);
    const wgpu::BufferUsage usage =
        wgpu::BufferUsage::QueryResolve | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    wgpu::Buffer resolved = MakeBuffer(kSize, usage, "resolved");
    wgpu::Buffer copy = MakeBuffer(kQueries * 8, usage, "copy");
    const std::vector<uint8_t> pattern(kSize, 0xab);
    queue.WriteBuffer(resolved, 0, pattern.data(), pattern.size());
    wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
    const wgpu::PassTimestampWrites writes{
        .querySet = set, .beginningOfPassWriteIndex = 1, .endOfPassWriteIndex = kQueries - 2};
    wgpu::ComputePassDescriptor pd{.label = "empty pass", .timestampWrites = &writes};
    encoder.BeginComputePass(&pd).End();
    encoder.ResolveQuerySet(set, 0, kQueries, resolved, kOffset);
    encoder.CopyBufferToBuffer(resolved, kOffset, copy, 0, kQueries * 8);
    Submit(encoder);
    const std::vector<uint8_t> bytes = ReadBytes(resolved, 0, kSize);
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (i >= kOffset && i < kOffset + kQueries * 8) continue;
      EXPECT_EQ(bytes[i], 0xab) << "byte " << i << " outside the resolved range changed";
    }
    std::vector<uint64_t> t(kQueries);
    std::memcpy(t.data(), bytes.data() + kOffset, kQueries * 8);
    EXPECT_EQ(Read<uint64_t>(copy, kQueries), t) << "a later copy saw other values";
    for (uint32_t i = 0; i < kQueries; ++i) {
      if (i != 1 && i != kQueries - 2) {
        EXPECT_EQ(t[i], 0u) << "unwritten query " << i;
      }
    }
    EXPECT_NE(t[1], 0u);
    EXPECT_GE(t[kQueries - 2], t[1]);
    device = raw;
    queue = raw.GetQueue();
    return t;
  }

  wgpu::Device raw;
};

// The converting device's stamps lie between the raw device's taken just before and just after
// (the driver's ticks are nanoseconds of one clock), once scaled as the shader scales them.
TEST_F(TimestampConversion, ScalesResolvedTicksByThePeriod) {
  for (const char* period : {"2.5", "52.083333"}) {
    SCOPED_TRACE(std::string("period ") + period);
    wgpu::Device converting = Converting(period);
    ASSERT_TRUE(converting);
    const uint32_t p = Scale(std::atof(period));
    const std::vector<uint64_t> before = Stamps(raw);
    const std::vector<uint64_t> converted = Stamps(converting);
    const std::vector<uint64_t> after = Stamps(raw);
    const uint64_t begin = converted[1], end = converted[kQueries - 2];
    EXPECT_LE(TicksToNs(before[kQueries - 2], p), begin);
    EXPECT_LE(end, TicksToNs(after[1], p));
    // Loosely, as a person would check it: about `period` times the raw value.
    const double ratio = static_cast<double>(begin) / static_cast<double>(before[1]);
    EXPECT_NEAR(ratio, std::atof(period), std::atof(period) * 0.01);
  }
}

}  // namespace
}  // namespace shim_test
