// The upload paths into a buffer — Queue::WriteBuffer's staging chunks, buffers mapped at creation
// and buffers mapped for writing — checked byte for byte against a CPU copy of every buffer: the
// write sizes that once overran a staging chunk, then seeded random sequences of all of them.
#include <algorithm>
#include <random>

#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferUsage;

// A device buffer and what it must hold.
struct Shadowed {
  wgpu::Buffer buffer;
  std::vector<uint8_t> bytes;
};

class Staging : public ShimTest {
 protected:
  Shadowed MakeShadowed(uint64_t size, const std::string& label) {
    return {MakeBuffer(size, BufferUsage::Storage | BufferUsage::CopyDst | BufferUsage::CopySrc, label),
            std::vector<uint8_t>(size, 0)};
  }

  // Bytes that differ between writes, so a copy from the wrong place shows.
  std::vector<uint8_t> Pattern(uint64_t size) {
    std::vector<uint8_t> data(size);
    for (auto& b : data) b = static_cast<uint8_t>(rng_());
    return data;
  }

  void Write(Shadowed& s, uint64_t offset, uint64_t size) {
    const std::vector<uint8_t> data = Pattern(size);
    queue.WriteBuffer(s.buffer, offset, data.data(), size);
    std::copy(data.begin(), data.end(), s.bytes.begin() + static_cast<ptrdiff_t>(offset));
  }

  // Through a MapWrite buffer, mapped at creation or with MapAsync, then a copy.
  void WriteThroughMapping(Shadowed& s, uint64_t offset, uint64_t size, bool atCreation) {
    const std::vector<uint8_t> data = Pattern(size);
    wgpu::BufferDescriptor desc;
    desc.label = "upload";
    desc.size = size;
    desc.usage = BufferUsage::MapWrite | BufferUsage::CopySrc;
    desc.mappedAtCreation = atCreation;
    wgpu::Buffer upload = device.CreateBuffer(&desc);
    if (!atCreation) {
      Wait(upload.MapAsync(wgpu::MapMode::Write, 0, size, wgpu::CallbackMode::WaitAnyOnly,
                           [](wgpu::MapAsyncStatus status, std::string_view m) {
                             EXPECT_EQ(status, wgpu::MapAsyncStatus::Success) << m;
                           }));
    }
    void* p = upload.GetMappedRange(0, size);
    ASSERT_NE(p, nullptr);
    std::memcpy(p, data.data(), size);
    upload.Unmap();
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(upload, 0, s.buffer, offset, size);
    Submit(encoder);
    std::copy(data.begin(), data.end(), s.bytes.begin() + static_cast<ptrdiff_t>(offset));
  }

  ::testing::AssertionResult Holds(const Shadowed& s) {
    const std::vector<uint8_t> got = ReadBytes(s.buffer, 0, s.bytes.size());
    const auto diff = std::mismatch(got.begin(), got.end(), s.bytes.begin());
    if (diff.first == got.end()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "byte " << (diff.first - got.begin()) << " of "
                                         << got.size() << " is " << int{*diff.first} << ", expected "
                                         << int{*diff.second};
  }

  std::mt19937_64 rng_{26};
};

// Two writes with no submit between them, the second larger than a staging chunk (4 MiB) and not a
// multiple of 16: the chunk is made to fit it exactly, and the next write must not be placed
// past its end (it was, and overran the mapped memory).
TEST_F(Staging, WritesLargerThanAChunkWithNoSubmitBetween) {
  Shadowed s = MakeShadowed(64ull << 20, "target");
  for (int round = 0; round < 3; ++round) {
    Write(s, 0, 1024);
    Write(s, 4096, 16776968);
    Write(s, 20ull << 20, 4194308);
    Write(s, 32ull << 20, 1024);
    Write(s, 40ull << 20, 4194308);
  }
  EXPECT_TRUE(Holds(s));
}

// Seeded random sequences over three buffers: WriteBuffer of 4 bytes to 32 MiB (log-uniform, odd
// multiples of 4 as often as not) at any offset, uploads through mapped buffers, submits or none;
// every byte checked at random points and at the end.
TEST_F(Staging, RandomWriteSequencesKeepEveryByte) {
  std::vector<Shadowed> buffers;
  buffers.push_back(MakeShadowed(4096, "small"));
  buffers.push_back(MakeShadowed((1ull << 20) + 12, "odd"));
  buffers.push_back(MakeShadowed(40ull << 20, "large"));
  std::uniform_real_distribution<double> unit(0, 1);
  for (int op = 0; op < 120; ++op) {
    Shadowed& s = buffers[rng_() % buffers.size()];
    const uint64_t words = s.bytes.size() / 4;
    // Log-uniform size in words, 1 … 8 Mi (32 MiB), within the buffer.
    uint64_t n = std::min<uint64_t>(words, static_cast<uint64_t>(std::exp2(unit(rng_) * 23)));
    n = std::max<uint64_t>(n, 1);
    if (n > 1 && rng_() % 2) n -= (n % 2 == 0);  // odd word counts: sizes that are not multiples of 8
    const uint64_t offset = 4 * (rng_() % (words - n + 1));
    const double kind = unit(rng_);
    if (kind < 0.7) {
      Write(s, offset, 4 * n);
    } else {
      WriteThroughMapping(s, offset, 4 * n, kind < 0.85);
    }
    if (unit(rng_) < 0.2) queue.Submit(0, nullptr);  // flushes the pending writes
    if (unit(rng_) < 0.08) {
      ASSERT_TRUE(Holds(s)) << "after operation " << op;
    }
  }
  for (const Shadowed& s : buffers) EXPECT_TRUE(Holds(s));
}

}  // namespace
}  // namespace shim_test
