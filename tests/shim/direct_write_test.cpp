// Queue::WriteBuffer into memory the host can write (a buffer created with the shim's
// `directWrites`, or any buffer on a device whose memory is all host-visible, as lavapipe's is):
// a write while no submitted work uses the buffer is done at once on the host; a write while
// submitted work still uses it, or while an earlier write to it waits in the queue, goes through
// staging in queue order. What every submission reads is checked, and which path each write took.
#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferUsage;

class DirectWrites : public ShimTest {
 protected:
  wgpu::Buffer Writable(const std::string& label) {
    wgpu::BufferDescriptor d;
    d.label = label;
    d.size = 16;
    d.usage = BufferUsage::Storage | BufferUsage::CopyDst | BufferUsage::CopySrc;
    d.directWrites = true;
    return device.CreateBuffer(&d);
  }

  void Write(const wgpu::Buffer& buffer, uint32_t value) {
    const std::vector<uint32_t> words(4, value);
    queue.WriteBuffer(buffer, 0, words.data(), 16);
  }

  // Maps `probe` (a MapRead buffer) and returns its first word.
  uint32_t MapFirstWord(const wgpu::Buffer& probe) {
    uint32_t word = 0;
    Wait(probe.MapAsync(wgpu::MapMode::Read, 0, 16, wgpu::CallbackMode::WaitAnyOnly,
                        [&](wgpu::MapAsyncStatus status, std::string_view m) {
                          ASSERT_EQ(status, wgpu::MapAsyncStatus::Success) << m;
                          std::memcpy(&word, probe.GetConstMappedRange(0, 16), 4);
                        }));
    probe.Unmap();
    return word;
  }
};

TEST_F(DirectWrites, AnIdleBufferIsWrittenAtOnceAndABusyOneInQueueOrder) {
  // A kernel long enough that the write below happens while it runs; the copy of `in` submitted
  // after it reads whatever `in` holds once the kernel is done. How long it runs is up to the
  // machine (a loaded 2-core CI runner once finished it before the host wrote): a try whose write
  // found the buffer idle still checks what the copy read, and the next try runs four times as
  // many workgroups. llvmpipe ends an invocation's loops after 65535 iterations in all (a loop of
  // 2^26 ran 65535 times, well under a millisecond, so every try could lose the race): the
  // length is in the workgroups, each invocation looping 60000 times.
  auto spin = Pipeline(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer S { uint s[]; };
void main() {
  uint x = s[0] + gl_GlobalInvocationID.x;
  for (uint i = 0u; i < 60000u; ++i) x = x * 1664525u + 1013904223u;
  if (x == s[1]) s[2] = x;
})");
  auto in = Writable("in");
  auto probe1 = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "probe 1");
  auto probe2 = MakeBuffer(16, BufferUsage::MapRead | BufferUsage::CopyDst, "probe 2");

  bool staged = false;
  uint64_t direct = 0;
  for (uint32_t workgroups = 256; !staged && workgroups <= 4096; workgroups *= 4) {
    auto scratch = Upload(std::vector<uint32_t>{1, 0, 0, 0}, BufferUsage::Storage, "scratch");
    auto spinGroup = Group(spin, 0, {scratch});
    WaitIdle();

    direct = wgpu::GetDirectBufferWritesForTesting();
    Write(in, 11);  // nothing uses `in`: written at once
    ASSERT_EQ(wgpu::GetDirectBufferWritesForTesting(), direct + 1);

    DispatchOne(spin, spinGroup, workgroups);
    auto encoder = device.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(in, 0, probe1, 0, 16);
    Submit(encoder);
    Write(in, 22);  // while the copy above, queued behind the kernel, still reads `in`: staged
    staged = wgpu::GetDirectBufferWritesForTesting() == direct + 1;
    EXPECT_EQ(MapFirstWord(probe1), 11u) << workgroups << " workgroups, "
                                         << (staged ? "staged" : "written at once");
  }
  ASSERT_TRUE(staged) << "every write found the spinning kernel already done";

  // The GPU is done with the first submission (its readback mapped), but the copy of 22 into
  // `in` is still pending: a write now must land after it, so it is staged too.
  Write(in, 33);
  EXPECT_EQ(wgpu::GetDirectBufferWritesForTesting(), direct + 1);
  auto encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(in, 0, probe2, 0, 16);
  Submit(encoder);
  EXPECT_EQ(MapFirstWord(probe2), 33u);

  WaitIdle();
  Write(in, 44);  // idle again
  EXPECT_EQ(wgpu::GetDirectBufferWritesForTesting(), direct + 2);
  EXPECT_EQ(Read<uint32_t>(in, 4), std::vector<uint32_t>(4, 44));
}

// A write at an offset changes only its range, whichever path it takes.
TEST_F(DirectWrites, AWriteAtAnOffsetKeepsTheRestOfTheBuffer) {
  auto in = Writable("in");
  Write(in, 5);
  const uint32_t seven = 7;
  queue.WriteBuffer(in, 8, &seven, 4);
  EXPECT_EQ(Read<uint32_t>(in, 4), (std::vector<uint32_t>{5, 5, 7, 5}));
  queue.WriteBuffer(in, 4, &seven, 4);  // `in` was just read by a copy: staged or direct
  EXPECT_EQ(Read<uint32_t>(in, 4), (std::vector<uint32_t>{5, 7, 7, 5}));
}

}  // namespace
}  // namespace shim_test
