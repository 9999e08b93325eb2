// Data round trips through real dispatches and copies, checked against the same math on the CPU.
#include <numeric>
#include <random>

#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferUsage;

class RoundTrip : public ShimTest {
 protected:
  // Runs `glsl` once over `a` (input) and `b` (output, `n` elements) and returns b.
  template <typename T>
  std::vector<T> Run(std::string_view glsl, const std::vector<T>& a, size_t n) {
    auto pipeline = Pipeline(glsl, "kernel");
    auto in = Upload(a, BufferUsage::Storage, "a");
    auto out = MakeBuffer(n * sizeof(T), BufferUsage::Storage | BufferUsage::CopySrc, "b");
    auto group = Group(pipeline, 0, {in, out});
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, group);
    pass.DispatchWorkgroups(static_cast<uint32_t>((n + 63) / 64));
    pass.End();
    Submit(encoder);
    return Read<T>(out, n);
  }
};

TEST_F(RoundTrip, F32) {
  std::vector<float> a(1000);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (auto& v : a) v = dist(rng);
  auto b = Run(Kernel("float", "b[i] = a[i] * 2.0 + 1.0;"), a, a.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(b[i], a[i] * 2.0f + 1.0f) << i;
}

TEST_F(RoundTrip, I32WithNegativesAndWraparound) {
  std::vector<int32_t> a = {0, 1, -1, 7, -7, INT32_MAX, INT32_MIN, 123456789, -987654321};
  auto b = Run(Kernel("int", "b[i] = a[i] * -3 + 7;"), a, a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const int32_t expected =
        static_cast<int32_t>(static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(-3) + 7u);
    ASSERT_EQ(b[i], expected) << i;
  }
}

TEST_F(RoundTrip, U32HashWraps) {
  std::vector<uint32_t> a(777);
  std::iota(a.begin(), a.end(), 4000000000u);
  auto b = Run(Kernel("uint", "uint x = a[i] * 2654435761u; b[i] = x ^ (x >> 13);"), a, a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const uint32_t x = a[i] * 2654435761u;
    ASSERT_EQ(b[i], x ^ (x >> 13)) << i;
  }
}

TEST_F(RoundTrip, NewBuffersAreZeroed) {
  auto buffer = MakeBuffer(4096, BufferUsage::Storage | BufferUsage::CopySrc, "fresh");
  for (uint8_t byte : ReadBytes(buffer, 0, 4096)) ASSERT_EQ(byte, 0);
}

// Small buffers share device memory blocks. Buffers of odd sizes are created, some destroyed
// and their space reused, every one filled by WriteBuffer and doubled by a dispatch; each must
// read back its own values — no two share bytes, and reused space starts zeroed.
TEST_F(RoundTrip, SmallBuffersInSharedMemoryNeverOverlap) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = a[i] * 2u;"), "double");
  std::mt19937 rng(5);
  struct Pair {
    wgpu::Buffer in, out;
    uint32_t count, seed;
  };
  std::vector<Pair> live;
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  for (uint32_t n = 0; n < 240; ++n) {
    const uint32_t count = 1 + rng() % 30000;  // about 14 MiB in all: several blocks
    std::vector<uint32_t> data(count);
    std::iota(data.begin(), data.end(), n << 16);
    Pair p{Upload(data, BufferUsage::Storage, "in"),
           MakeBuffer(count * 4, BufferUsage::Storage | BufferUsage::CopySrc, "out"), count, n << 16};
    pass.SetBindGroup(0, Group(pipeline, 0, {p.in, p.out}));
    pass.DispatchWorkgroups((count + 63) / 64);
    live.push_back(std::move(p));
    if (n % 3 == 2) live.erase(live.begin() + static_cast<long>(rng() % live.size()));  // frees a range
  }
  pass.End();
  Submit(encoder);
  for (const Pair& p : live) {
    const auto out = Read<uint32_t>(p.out, p.count);
    for (uint32_t i = 0; i < p.count; ++i) ASSERT_EQ(out[i], (p.seed + i) * 2u) << "buffer " << p.seed;
  }
  // Space freed above is handed out again zeroed.
  for (int n = 0; n < 20; ++n) {
    auto fresh = MakeBuffer(4 + 4 * (rng() % 3000), BufferUsage::Storage | BufferUsage::CopySrc, "fresh");
    for (uint8_t byte : ReadBytes(fresh, 0, fresh.GetSize())) ASSERT_EQ(byte, 0);
  }
  // The memory a buffer holds is counted while it lives and given back once the GPU is done.
  WaitIdle();
  const uint64_t before = wgpu::GetBufferMemoryInUseForTesting();
  {
    auto held = MakeBuffer(1 << 16, BufferUsage::Storage, "held");
    EXPECT_GE(wgpu::GetBufferMemoryInUseForTesting(), before + (1 << 16));
  }
  WaitIdle();
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), before);
}

// 256 MiB through WriteBuffer, two 128 MiB storage bindings with a 2-D dispatch, and readback.
TEST_F(RoundTrip, LargeBuffer256MiB) {
  constexpr uint64_t kBytes = 256ull << 20;
  constexpr uint64_t kHalf = kBytes / 2;
  constexpr uint32_t kElems = kHalf / 4;
  wgpu::Limits limits;
  limits.maxBufferSize = kBytes;
  device = MakeDevice(&limits);
  queue = device.GetQueue();
  std::vector<uint32_t> data(kBytes / 4);
  std::iota(data.begin(), data.end(), 0u);
  auto buffer = Upload(data, BufferUsage::Storage | BufferUsage::CopySrc, "big");
  auto pipeline = Pipeline(R"(#version 450
    layout(local_size_x = 256) in;
    layout(set = 0, binding = 0, std430) buffer B { uint b[]; };
    void main() {
      uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
      if (i < uint(b.length())) b[i] = b[i] * 3u + 1u;
    })",
                           "big kernel");
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  for (uint64_t offset : {uint64_t{0}, kHalf}) {
    wgpu::BindGroupDescriptor d;
    d.layout = pipeline.GetBindGroupLayout(0);
    const wgpu::BindGroupEntry dEntries[] = {
        {.binding = 0, .buffer = buffer, .offset = offset, .size = kHalf}};
    d.entryCount = std::size(dEntries);
    d.entries = dEntries;
    pass.SetBindGroup(0, device.CreateBindGroup(&d));
    pass.DispatchWorkgroups(kElems / 256 / 8, 8);
  }
  pass.End();
  Submit(encoder);
  auto out = Read<uint32_t>(buffer, data.size());
  for (size_t i = 0; i < data.size(); ++i)
    if (out[i] != data[i] * 3u + 1u) FAIL() << "mismatch at " << i;
}

// 1000 dispatches in one pass that each read and write the same buffer: every one depends on the
// previous, so a missing barrier shows up as a lost increment.
TEST_F(RoundTrip, ThousandDependentDispatchesInOnePass) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = b[i] + a[i];"), "inc");
  auto ones = Upload(std::vector<uint32_t>(256, 1u), BufferUsage::Storage, "ones");
  auto acc = MakeBuffer(256 * 4, BufferUsage::Storage | BufferUsage::CopySrc, "acc");
  auto group = Group(pipeline, 0, {ones, acc});
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  for (int k = 0; k < 1000; ++k) pass.DispatchWorkgroups(4);
  pass.End();
  Submit(encoder);
  for (uint32_t v : Read<uint32_t>(acc, 256)) ASSERT_EQ(v, 1000u);
}

// Independent dispatches (disjoint buffers) need no barriers between them; dependent ones do.
TEST_F(RoundTrip, BarriersOnlyWhereNeeded) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = a[i] + 1u;"), "plus1");
  auto input = Upload(std::vector<uint32_t>(64, 41u), BufferUsage::Storage, "in");
  std::vector<wgpu::Buffer> outs;
  std::vector<wgpu::BindGroup> groups;
  for (int k = 0; k < 100; ++k) {
    outs.push_back(
        MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "out" + std::to_string(k)));
    groups.push_back(Group(pipeline, 0, {input, outs.back()}));
  }
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  for (auto& g : groups) {
    pass.SetBindGroup(0, g);
    pass.DispatchWorkgroups(1);
  }
  pass.End();
  auto commands = encoder.Finish();
  // One barrier orders the pass after earlier submissions; the 100 dispatches need none.
  EXPECT_EQ(commands.GetBarrierCountForTesting(), 1u);
  queue.Submit(1, &commands);
  for (auto& o : outs)
    for (uint32_t v : Read<uint32_t>(o, 64)) ASSERT_EQ(v, 42u);
}

// Dispatches touching disjoint ranges of one buffer (the views of an arena) need no barrier
// between them; a read or a write of bytes another dispatch wrote, or a write of bytes another
// read, since the last barrier needs one.
TEST_F(RoundTrip, RangesOfOneBufferNeedBarriersOnlyWhereTheyOverlap) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = a[i] + 1u;"), "plus1");
  auto input = Upload(std::vector<uint32_t>(64, 41u), BufferUsage::Storage, "in");
  auto out = MakeBuffer(3 * 256, BufferUsage::Storage | BufferUsage::CopySrc, "out");
  auto side = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "side");
  const auto group = [&](const wgpu::Buffer& a, uint64_t aAt, const wgpu::Buffer& b, uint64_t bAt) {
    const wgpu::BindGroupEntry entries[] = {{.binding = 0, .buffer = a, .offset = aAt, .size = 256},
                                            {.binding = 1, .buffer = b, .offset = bAt, .size = 256}};
    const wgpu::BindGroupDescriptor d{.layout = pipeline.GetBindGroupLayout(0), .entryCount = 2,
                                      .entries = entries};
    return device.CreateBindGroup(&d);
  };
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  const auto dispatch = [&](const wgpu::BindGroup& g) {
    pass.SetBindGroup(0, g);
    pass.DispatchWorkgroups(1);
  };
  dispatch(group(input, 0, out, 0));    // a barrier after earlier submissions
  dispatch(group(input, 0, out, 256));  // another range: none
  dispatch(group(out, 0, side, 0));     // reads what the first wrote: one
  dispatch(group(input, 0, out, 512));  // a range nothing touched since: none
  dispatch(group(input, 0, out, 0));    // rewrites what the third read: one
  pass.End();
  auto commands = encoder.Finish();
  EXPECT_EQ(commands.GetBarrierCountForTesting(), 3u);
  queue.Submit(1, &commands);
  EXPECT_EQ(Read<uint32_t>(out, 192), std::vector<uint32_t>(192, 42u));
  EXPECT_EQ(Read<uint32_t>(side, 64), std::vector<uint32_t>(64, 43u));
}

// A chain of dispatches and copies across many submits: each step reads the previous result.
TEST_F(RoundTrip, DependentChainOfDispatchesAndCopiesAcrossSubmits) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = a[i] * 3u + i;"), "step");
  std::vector<uint32_t> x(1024);
  std::iota(x.begin(), x.end(), 1u);
  auto src = Upload(x, BufferUsage::Storage | BufferUsage::CopySrc, "src");
  auto dst = MakeBuffer(x.size() * 4, BufferUsage::Storage | BufferUsage::CopySrc, "dst");
  auto group = Group(pipeline, 0, {src, dst});
  for (int step = 0; step < 20; ++step) {
    auto encoder = device.CreateCommandEncoder();
    for (int inner = 0; inner < 3; ++inner) {
      auto pass = encoder.BeginComputePass();
      pass.SetPipeline(pipeline);
      pass.SetBindGroup(0, group);
      pass.DispatchWorkgroups(16);
      pass.End();
      encoder.CopyBufferToBuffer(dst, 0, src, 0, x.size() * 4);
      for (uint32_t i = 0; i < x.size(); ++i) x[i] = x[i] * 3u + i;
    }
    Submit(encoder);
  }
  EXPECT_EQ(Read<uint32_t>(src, x.size()), x);
}

TEST_F(RoundTrip, WriteBufferIsOrderedBetweenSubmits) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = b[i] * 10u + a[i];"), "acc");
  auto in = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopyDst, "in");
  auto acc = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "acc");
  auto group = Group(pipeline, 0, {in, acc});
  for (uint32_t digit = 1; digit <= 5; ++digit) {
    std::vector<uint32_t> v(64, digit);
    queue.WriteBuffer(in, 0, v.data(), 256);  // overwrites the input the previous submit read
    DispatchOne(pipeline, group);
  }
  for (uint32_t v : Read<uint32_t>(acc, 64)) ASSERT_EQ(v, 12345u);
}

// The runtime's pattern: record input → dispatch → readback once, then per step write the input,
// resubmit the same command buffer and map the readback.
TEST_F(RoundTrip, ReusableCommandBufferReplaysWithFreshInputsAndReadbacks) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = b[i] * 10u + a[i];"), "acc");
  auto in = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopyDst, "in");
  auto acc = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "acc");
  auto readback = MakeBuffer(256, BufferUsage::MapRead | BufferUsage::CopyDst, "readback");
  wgpu::CommandEncoderDescriptor ed;
  ed.reusable = true;
  auto encoder = device.CreateCommandEncoder(&ed);
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, Group(pipeline, 0, {in, acc}));
  pass.DispatchWorkgroups(1);
  pass.End();
  encoder.CopyBufferToBuffer(acc, 0, readback, 0, 256);
  wgpu::CommandBuffer step = encoder.Finish();
  uint32_t expected = 0;
  for (uint32_t digit = 1; digit <= 9; ++digit) {
    std::vector<uint32_t> v(64, digit);
    queue.WriteBuffer(in, 0, v.data(), 256);
    queue.Submit(1, &step);
    expected = expected * 10 + digit;
    Wait(readback.MapAsync(wgpu::MapMode::Read, 0, 256, wgpu::CallbackMode::WaitAnyOnly,
                           [](wgpu::MapAsyncStatus s, std::string_view) {
                             EXPECT_EQ(s, wgpu::MapAsyncStatus::Success);
                           }));
    const auto* words = static_cast<const uint32_t*>(readback.GetConstMappedRange(0, 256));
    ASSERT_EQ(words[0], expected);
    ASSERT_EQ(words[63], expected);
    readback.Unmap();
  }
  // Replaying while the readback is still mapped is a validation error, as for any submit.
  Wait(readback.MapAsync(wgpu::MapMode::Read, 0, 256, wgpu::CallbackMode::WaitAnyOnly,
                         [](wgpu::MapAsyncStatus, std::string_view) {}));
  const CapturedError e = Capture([&] { queue.Submit(1, &step); });
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("readback"), std::string::npos) << e.message;
  readback.Unmap();
}

// A copy after the pass reads what the first dispatch wrote, though a barrier for the second
// dispatch came in between: that barrier must make the write visible to copies too (synchronization
// validation flags the hazard otherwise).
TEST_F(RoundTrip, CopyAfterALaterBarrierSeesEarlierDispatchWrites) {
  auto fill = Pipeline(Kernel("uint", "b[i] = a[i] + 1u;"), "fill");
  std::vector<uint32_t> x(64, 41u);
  auto src = Upload(x, BufferUsage::Storage, "src");
  auto first = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "first");
  auto second = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "second");
  auto out = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst, "out");
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(fill);
  pass.SetBindGroup(0, Group(fill, 0, {src, first}));
  pass.DispatchWorkgroups(1);
  pass.SetBindGroup(0, Group(fill, 0, {first, second}));  // reads `first`: a barrier
  pass.DispatchWorkgroups(1);
  pass.End();
  encoder.CopyBufferToBuffer(first, 0, out, 0, 256);
  Submit(encoder);
  for (uint32_t v : Read<uint32_t>(out, 64)) ASSERT_EQ(v, 42u);
  for (uint32_t v : Read<uint32_t>(second, 64)) ASSERT_EQ(v, 43u);
}

// Indirect arguments written by a dispatch, then a barrier for an unrelated dependency, then the
// indirect dispatch (whose validation pass reads the arguments): the written counts are used.
TEST_F(RoundTrip, IndirectArgumentsWrittenBeforeALaterBarrierAreVisible) {
  auto writeArgs = Pipeline(Kernel("uint", "b[i] = a[i];"), "write args");
  auto inc = Pipeline(Kernel("uint", "b[i] = b[i] + a[i];"), "inc");
  auto argValues = Upload(std::vector<uint32_t>{2, 1, 1, 0}, BufferUsage::Storage, "arg values");
  auto args = MakeBuffer(16, BufferUsage::Storage | BufferUsage::Indirect, "args");
  auto ones = Upload(std::vector<uint32_t>(256, 1u), BufferUsage::Storage, "ones");
  auto acc = MakeBuffer(1024, BufferUsage::Storage | BufferUsage::CopySrc, "acc");
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(writeArgs);
  pass.SetBindGroup(0, Group(writeArgs, 0, {argValues, args}));
  pass.DispatchWorkgroups(1);
  pass.SetPipeline(inc);
  pass.SetBindGroup(0, Group(inc, 0, {ones, acc}));
  pass.DispatchWorkgroups(1);
  pass.DispatchWorkgroups(1);  // a barrier (acc after acc) that does not involve `args`
  pass.DispatchWorkgroupsIndirect(args, 0);
  pass.End();
  Submit(encoder);
  auto v = Read<uint32_t>(acc, 256);
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(v[i], i < 64 ? 3u : i < 128 ? 1u : 0u) << i;
}

TEST_F(RoundTrip, ClearAndPartialCopies) {
  std::vector<uint32_t> data(64);
  std::iota(data.begin(), data.end(), 100u);
  auto a = Upload(data, BufferUsage::CopySrc, "a");
  auto b = Upload(std::vector<uint32_t>(64, 7u), BufferUsage::CopySrc | BufferUsage::CopyDst, "b");
  auto encoder = device.CreateCommandEncoder();
  encoder.ClearBuffer(b, 16, 32);                 // elements 4..11 → 0
  encoder.CopyBufferToBuffer(a, 128, b, 64, 16);  // elements 32..35 of a → 16..19 of b
  Submit(encoder);
  auto out = Read<uint32_t>(b, 64);
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t expected = 7;
    if (i >= 4 && i < 12) expected = 0;
    if (i >= 16 && i < 20) expected = 100 + 32 + (i - 16);
    ASSERT_EQ(out[i], expected) << i;
  }
}

TEST_F(RoundTrip, MappedAtCreationStorageAndMapWriteUpload) {
  wgpu::BufferDescriptor d;
  d.label = "created mapped";
  d.size = 64;
  d.usage = BufferUsage::Storage | BufferUsage::CopySrc;
  d.mappedAtCreation = true;
  auto created = device.CreateBuffer(&d);
  EXPECT_EQ(created.GetMapState(), wgpu::BufferMapState::Mapped);
  auto* p = static_cast<uint32_t*>(created.GetMappedRange());
  ASSERT_NE(p, nullptr);
  for (uint32_t i = 0; i < 16; ++i) p[i] = i * i;
  created.Unmap();

  auto upload = MakeBuffer(64, BufferUsage::MapWrite | BufferUsage::CopySrc, "upload");
  Wait(upload.MapAsync(wgpu::MapMode::Write, 0, 64, wgpu::CallbackMode::AllowProcessEvents,
                       [](wgpu::MapAsyncStatus s, std::string_view m) {
                         ASSERT_EQ(s, wgpu::MapAsyncStatus::Success) << m;
                       }));
  auto* q = static_cast<uint32_t*>(upload.GetMappedRange(0, 64));
  ASSERT_NE(q, nullptr);
  for (uint32_t i = 0; i < 16; ++i) q[i] = 1000 + i;
  upload.Unmap();
  auto target = MakeBuffer(128, BufferUsage::CopyDst | BufferUsage::CopySrc, "target");
  auto encoder = device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(created, 0, target, 0, 64);
  encoder.CopyBufferToBuffer(upload, 0, target, 64, 64);
  Submit(encoder);
  auto out = Read<uint32_t>(target, 32);
  for (uint32_t i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], i * i);
    EXPECT_EQ(out[16 + i], 1000 + i);
  }
}

TEST_F(RoundTrip, UniformBufferAndOverrideConstant) {
  auto pipelineModule = Module(R"(#version 450
    layout(local_size_x = 64) in;
    layout(constant_id = 7) const uint kScale = 1u;
    layout(set = 0, binding = 0, std140) uniform Params { uint offset; } params;
    layout(set = 0, binding = 1, std430) buffer B { uint b[]; };
    void main() { uint i = gl_GlobalInvocationID.x; b[i] = i * kScale + params.offset; })",
                               "scaled");
  wgpu::ComputePipelineDescriptor d;
  d.label = "scaled";
  d.compute.module = pipelineModule;
  const wgpu::ConstantEntry dConstants[] = {{.key = "7", .value = 5}};
  d.compute.constantCount = std::size(dConstants);
  d.compute.constants = dConstants;
  auto pipeline = device.CreateComputePipeline(&d);
  auto params = Upload(std::vector<uint32_t>{1000, 0, 0, 0}, BufferUsage::Uniform, "params");
  auto out = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "out");
  auto group = Group(pipeline, 0, {params, out});
  DispatchOne(pipeline, group);
  auto v = Read<uint32_t>(out, 64);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], i * 5 + 1000);
}

TEST_F(RoundTrip, IndirectDispatchRunsValidCountsAndSkipsOversizedOnes) {
  auto pipeline = Pipeline(Kernel("uint", "b[i] = b[i] + a[i];"), "inc");
  auto ones = Upload(std::vector<uint32_t>(256, 1u), BufferUsage::Storage, "ones");
  auto acc = MakeBuffer(1024, BufferUsage::Storage | BufferUsage::CopySrc, "acc");
  wgpu::Limits limits;
  device.GetLimits(&limits);
  // At offset 4: (2,1,1) runs 128 threads; at offset 16: an x count over the limit is skipped.
  std::vector<uint32_t> args = {0, 2, 1, 1, limits.maxComputeWorkgroupsPerDimension + 1, 1, 1};
  auto indirect = Upload(args, BufferUsage::Indirect, "args");
  auto group = Group(pipeline, 0, {ones, acc});
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, group);
  pass.DispatchWorkgroupsIndirect(indirect, 4);
  pass.DispatchWorkgroupsIndirect(indirect, 16);
  pass.DispatchWorkgroupsIndirect(indirect, 4);
  pass.End();
  Submit(encoder);
  auto v = Read<uint32_t>(acc, 256);
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(v[i], i < 128 ? 2u : 0u) << i;
}

// Two pipelines with equal explicit layouts share bind groups (group-equivalence).
TEST_F(RoundTrip, ExplicitLayoutsAreGroupEquivalent) {
  auto makeLayout = [&] {
    wgpu::BindGroupLayoutDescriptor d;
    d.label = "explicit";
    const wgpu::BindGroupLayoutEntry dEntries[] = {
        {.binding = 0,
         .visibility = wgpu::ShaderStage::Compute,
         .buffer = {.type = wgpu::BufferBindingType::ReadOnlyStorage}},
        {.binding = 1,
         .visibility = wgpu::ShaderStage::Compute,
         .buffer = {.type = wgpu::BufferBindingType::Storage}}};
    d.entryCount = std::size(dEntries);
    d.entries = dEntries;
    return device.CreateBindGroupLayout(&d);
  };
  auto bgl1 = makeLayout(), bgl2 = makeLayout();
  wgpu::PipelineLayoutDescriptor pl;
  const wgpu::BindGroupLayout plLayouts[] = {bgl2};
  pl.bindGroupLayoutCount = std::size(plLayouts);
  pl.bindGroupLayouts = plLayouts;
  wgpu::ComputePipelineDescriptor pd;
  pd.layout = device.CreatePipelineLayout(&pl);
  pd.compute.module = Module(Kernel("uint", "b[i] = a[i] + 5u;"));
  auto pipeline = device.CreateComputePipeline(&pd);
  auto in = Upload(std::vector<uint32_t>(64, 10u), BufferUsage::Storage, "in");
  auto out = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "out");
  wgpu::BindGroupDescriptor gd;
  gd.layout = bgl1;
  const wgpu::BindGroupEntry gdEntries[] = {{.binding = 0, .buffer = in},
                                            {.binding = 1, .buffer = out}};
  gd.entryCount = std::size(gdEntries);
  gd.entries = gdEntries;
  auto group = device.CreateBindGroup(&gd);
  DispatchOne(pipeline, group);
  for (uint32_t v : Read<uint32_t>(out, 64)) ASSERT_EQ(v, 15u);
}

TEST_F(RoundTrip, AsyncPipelineCreation) {
  wgpu::ComputePipelineDescriptor d;
  d.label = "async";
  d.compute.module = Module(Kernel("float", "b[i] = a[i];"));
  wgpu::ComputePipeline pipeline;
  Wait(device.CreateComputePipelineAsync(
      &d, wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::CreatePipelineAsyncStatus s, wgpu::ComputePipeline p, std::string_view m) {
        EXPECT_EQ(s, wgpu::CreatePipelineAsyncStatus::Success) << m;
        pipeline = p;
      }));
  EXPECT_TRUE(pipeline);
  d.compute.entryPoint = "missing";
  Wait(device.CreateComputePipelineAsync(
      &d, wgpu::CallbackMode::AllowProcessEvents,
      [&](wgpu::CreatePipelineAsyncStatus s, wgpu::ComputePipeline p, std::string_view m) {
        EXPECT_EQ(s, wgpu::CreatePipelineAsyncStatus::ValidationError);
        EXPECT_FALSE(p);
        EXPECT_NE(m.find("missing"), std::string_view::npos) << m;
      }));
}

// Many builds in flight at once (they run on the device's background threads), each waited for
// in turn; every pipeline computes its own constant.
TEST_F(RoundTrip, AsyncPipelinesBuiltConcurrently) {
  constexpr uint32_t kCount = 24;
  std::vector<wgpu::ComputePipeline> pipelines(kCount);
  std::vector<wgpu::Future> futures;
  for (uint32_t k = 0; k < kCount; ++k) {
    wgpu::ComputePipelineDescriptor d;
    d.compute.module = Module(Kernel("uint", "b[i] = a[i] + " + std::to_string(k) + "u;"));
    futures.push_back(device.CreateComputePipelineAsync(
        &d, wgpu::CallbackMode::WaitAnyOnly,
        [&pipelines, k](wgpu::CreatePipelineAsyncStatus s, wgpu::ComputePipeline p, std::string_view m) {
          EXPECT_EQ(s, wgpu::CreatePipelineAsyncStatus::Success) << m;
          pipelines[k] = std::move(p);
        }));
  }
  for (auto& f : futures) Wait(f);
  auto in = Upload(std::vector<uint32_t>(64, 100u), BufferUsage::Storage, "in");
  for (uint32_t k = 0; k < kCount; ++k) {
    ASSERT_TRUE(pipelines[k]) << k;
    auto out = MakeBuffer(256, BufferUsage::Storage | BufferUsage::CopySrc, "out");
    DispatchOne(pipelines[k], Group(pipelines[k], 0, {in, out}));
    for (uint32_t v : Read<uint32_t>(out, 64)) ASSERT_EQ(v, 100u + k);
  }
}

}  // namespace
}  // namespace shim_test

namespace shim_test {
namespace {

// WGSL modules go through wgsl_subset; overrides are set by their WGSL names.
TEST_F(RoundTrip, WgslModuleWithOverrideByName) {
  wgpu::ShaderSourceWGSL source;
  source.code = R"(override scale : f32 = 2.0;
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  if (gid.x < arrayLength(&a)) { b[gid.x] = a[gid.x] * scale; }
})";
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &source;
  md.label = "scaled";
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = device.CreateShaderModule(&md);
  const wgpu::ConstantEntry pdConstants[] = {{.key = "scale", .value = 3.5}};
  pd.compute.constantCount = std::size(pdConstants);
  pd.compute.constants = pdConstants;
  wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pd);
  const std::vector<float> a = {1, -2, 0.5, 8};
  auto in = Upload(a, wgpu::BufferUsage::Storage);
  auto out = MakeBuffer(16, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  DispatchOne(pipeline, Group(pipeline, 0, {in, out}));
  EXPECT_EQ(Read<float>(out, 4), (std::vector<float>{3.5f, -7.0f, 1.75f, 28.0f}));
  EXPECT_TRUE(uncaptured.empty());
}

TEST_F(RoundTrip, InvalidWgslReportsLineAndColumn) {
  wgpu::ShaderSourceWGSL source;
  source.code = "@compute @workgroup_size(1)\nfn main() {\n  let x : u32 = 1.5;\n}\n";
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &source;
  md.label = "broken kernel";
  wgpu::ShaderModule module;
  const CapturedError error = Capture([&] { module = device.CreateShaderModule(&md); });
  EXPECT_EQ(error.type, wgpu::ErrorType::Validation);
  EXPECT_NE(error.message.find("broken kernel"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("error: 3:17:"), std::string::npos) << error.message;
  std::vector<wgpu::CompilationMessage> messages;
  Wait(module.GetCompilationInfo(
      wgpu::CallbackMode::WaitAnyOnly,
      [&](wgpu::CompilationInfoRequestStatus, const wgpu::CompilationInfo* info) {
        messages.assign(info->messages, info->messages + info->messageCount);
      }));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].lineNum, 3u);
  EXPECT_EQ(messages[0].linePos, 17u);
  EXPECT_EQ(messages[0].type, wgpu::CompilationMessageType::Error);
}

}  // namespace
}  // namespace shim_test
