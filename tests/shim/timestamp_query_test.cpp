// WebGPU's timestamp-query feature: query sets, compute passes' timestampWrites and
// ResolveQuerySet measure real GPU time in nanoseconds, resolve unwritten queries to 0, write
// exactly their range, and report each rule they break; the C API end to end.
#include <webgpu/webgpu.h>

#include <chrono>
#include <cstring>

#include "feature_test.h"

namespace shim_test {
namespace {

// Each invocation runs `params[0]` steps of an LCG: enough work to take measurable time, which
// the compiler cannot fold away.
const char* kBusyKernel = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint params[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint b[]; };
void main() {
  uint x = gl_GlobalInvocationID.x;
  for (uint i = 0u; i < params[0]; ++i) x = x * 1664525u + 1013904223u;
  b[gl_GlobalInvocationID.x] = x;
}
)";

constexpr wgpu::BufferUsage kResolveUsage =
    wgpu::BufferUsage::QueryResolve | wgpu::BufferUsage::CopySrc;

class TimestampQuery : public FeatureTest {
 protected:
  void SetUp() override {
    FeatureTest::SetUp();
    if (!UseDeviceWith({wgpu::FeatureName::TimestampQuery})) GTEST_SKIP() << "no timestamp-query";
    pipeline = Pipeline(kBusyKernel, "busy");
    group = Group(pipeline, 0,
                  {Upload(std::vector<uint32_t>{20000}, wgpu::BufferUsage::Storage, "params"),
                   MakeBuffer(64 * 4, wgpu::BufferUsage::Storage, "out")});
  }

  wgpu::QuerySet MakeSet(uint32_t count, const char* label = "timestamps",
                         wgpu::QueryType type = wgpu::QueryType::Timestamp,
                         const wgpu::Device* on = nullptr) {
    wgpu::QuerySetDescriptor d{.label = label, .type = type, .count = count};
    return (on ? *on : device).CreateQuerySet(&d);
  }
  // A pass of one busy dispatch, with `writes`.
  void BusyPass(const wgpu::CommandEncoder& encoder, const wgpu::PassTimestampWrites* writes) {
    wgpu::ComputePassDescriptor d{.label = "busy pass", .timestampWrites = writes};
    wgpu::ComputePassEncoder pass = encoder.BeginComputePass(&d);
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, group);
    pass.DispatchWorkgroups(1);
    pass.End();
  }
  // Resolves [first, first + count) of `set` in its own submission and reads the values.
  std::vector<uint64_t> Resolve(const wgpu::QuerySet& set, uint32_t first, uint32_t count) {
    wgpu::Buffer resolved = MakeBuffer(count * 8, kResolveUsage, "resolved");
    wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
    encoder.ResolveQuerySet(set, first, count, resolved, 0);
    Submit(encoder);
    return Read<uint64_t>(resolved, count);
  }
  // The validation error an encoder's Finish reports after `encode` ("" if none).
  std::string FinishError(const std::function<void(const wgpu::CommandEncoder&)>& encode) {
    return Capture([&] {
             wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
             encode(encoder);
             encoder.Finish();
           })
        .message;
  }

  wgpu::ComputePipeline pipeline;
  wgpu::BindGroup group;
};

TEST_F(TimestampQuery, MeasuresAPassInNanoseconds) {
  wgpu::QuerySet set = MakeSet(2);
  EXPECT_EQ(set.GetCount(), 2u);
  EXPECT_EQ(set.GetType(), wgpu::QueryType::Timestamp);
  wgpu::Buffer resolved = MakeBuffer(16, kResolveUsage, "resolved");
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  const wgpu::PassTimestampWrites writes{
      .querySet = set, .beginningOfPassWriteIndex = 0, .endOfPassWriteIndex = 1};
  BusyPass(encoder, &writes);
  encoder.ResolveQuerySet(set, 0, 2, resolved, 0);
  const auto start = std::chrono::steady_clock::now();
  Submit(encoder);
  const std::vector<uint64_t> t = Read<uint64_t>(resolved, 2);  // waits for the submission
  const auto wall =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_NE(t[0], 0u);
  ASSERT_GE(t[1], t[0]);
  const uint64_t gpu = t[1] - t[0];
  EXPECT_GT(gpu, 0u);
  EXPECT_LT(gpu, static_cast<uint64_t>(wall))
      << "GPU time " << gpu << " ns, host wall time " << wall;
}

TEST_F(TimestampQuery, ConsecutivePassesAreMonotonic) {
  wgpu::QuerySet set = MakeSet(4);
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  const wgpu::PassTimestampWrites first{
      .querySet = set, .beginningOfPassWriteIndex = 0, .endOfPassWriteIndex = 1};
  const wgpu::PassTimestampWrites second{
      .querySet = set, .beginningOfPassWriteIndex = 2, .endOfPassWriteIndex = 3};
  BusyPass(encoder, &first);
  BusyPass(encoder, &second);
  Submit(encoder);
  const std::vector<uint64_t> t = Resolve(set, 0, 4);  // written by an earlier submission
  EXPECT_NE(t[0], 0u);
  for (size_t i = 1; i < t.size(); ++i) EXPECT_LE(t[i - 1], t[i]) << "query " << i;
}

// A query is reset before its command buffer runs, unless the commands write it twice or read
// it first: then right before the write. Each path keeps every value a resolve sees.
TEST_F(TimestampQuery, RewrittenAndReadFirstQueriesKeepTheirValues) {
  wgpu::QuerySet set = MakeSet(2);
  const wgpu::PassTimestampWrites end0{.querySet = set, .endOfPassWriteIndex = 0};
  const wgpu::PassTimestampWrites end1{.querySet = set, .endOfPassWriteIndex = 1};
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  BusyPass(encoder, &end0);
  Submit(encoder);
  const uint64_t earlier = Resolve(set, 0, 1)[0];
  ASSERT_NE(earlier, 0u);
  // Read first (the earlier submission's value), then written twice, then read again.
  wgpu::Buffer resolved = MakeBuffer(256 + 16, kResolveUsage, "resolved");
  encoder = device.CreateCommandEncoder();
  encoder.ResolveQuerySet(set, 0, 1, resolved, 0);
  BusyPass(encoder, &end0);
  BusyPass(encoder, &end1);
  BusyPass(encoder, &end0);
  encoder.ResolveQuerySet(set, 0, 2, resolved, 256);
  Submit(encoder);
  const std::vector<uint64_t> t = Read<uint64_t>(resolved, 256 / 8 + 2);
  EXPECT_EQ(t[0], earlier);
  const uint64_t last0 = t[256 / 8], last1 = t[256 / 8 + 1];
  EXPECT_GT(last1, earlier);
  EXPECT_GT(last0, last1);  // the second write of query 0 came after query 1's
  // Two command buffers in one submit, each writing both queries (each with its own resets).
  wgpu::CommandEncoder a = device.CreateCommandEncoder(), b = device.CreateCommandEncoder();
  for (const wgpu::CommandEncoder* e : {&a, &b}) {
    BusyPass(*e, &end0);
    BusyPass(*e, &end1);
  }
  const wgpu::CommandBuffer both[] = {a.Finish(), b.Finish()};
  device.GetQueue().Submit(2, both);
  const std::vector<uint64_t> after = Resolve(set, 0, 2);
  EXPECT_GT(after[0], last0);
  EXPECT_GT(after[1], after[0]);
}

TEST_F(TimestampQuery, UnwrittenQueriesResolveToZero) {
  wgpu::QuerySet set = MakeSet(5);
  EXPECT_EQ(Resolve(set, 0, 5), std::vector<uint64_t>(5, 0));  // never written
  // Only the end of the pass, at 2: its neighbours stay 0, in the same encoder and later.
  wgpu::Buffer resolved = MakeBuffer(5 * 8, kResolveUsage, "resolved");
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  const wgpu::PassTimestampWrites writes{.querySet = set, .endOfPassWriteIndex = 2};
  BusyPass(encoder, &writes);
  encoder.ResolveQuerySet(set, 0, 5, resolved, 0);
  Submit(encoder);
  std::vector<uint64_t> t = Read<uint64_t>(resolved, 5);
  EXPECT_EQ(t[0], 0u);
  EXPECT_EQ(t[1], 0u);
  EXPECT_NE(t[2], 0u);
  EXPECT_EQ(t[3], 0u);
  EXPECT_EQ(t[4], 0u);
  t = Resolve(set, 1, 3);
  EXPECT_EQ(t[0], 0u);
  EXPECT_NE(t[1], 0u);
  EXPECT_EQ(t[2], 0u);
}

TEST_F(TimestampQuery, ResolveWritesExactlyItsRange) {
  wgpu::QuerySet set = MakeSet(4);
  wgpu::Buffer resolved = MakeBuffer(1024, kResolveUsage | wgpu::BufferUsage::CopyDst, "resolved");
  const std::vector<uint8_t> pattern(1024, 0xab);
  queue.WriteBuffer(resolved, 0, pattern.data(), pattern.size());
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  const wgpu::PassTimestampWrites writes{
      .querySet = set, .beginningOfPassWriteIndex = 1, .endOfPassWriteIndex = 2};
  BusyPass(encoder, &writes);
  encoder.ResolveQuerySet(set, 0, 3, resolved, 256);  // 0 unwritten, 1 and 2 written
  Submit(encoder);
  const std::vector<uint8_t> bytes = ReadBytes(resolved, 0, 1024);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i >= 256 && i < 256 + 3 * 8) continue;
    ASSERT_EQ(bytes[i], 0xab) << "byte " << i << " outside the resolved range changed";
  }
  uint64_t t[3];
  std::memcpy(t, bytes.data() + 256, sizeof t);
  EXPECT_EQ(t[0], 0u);
  EXPECT_NE(t[1], 0u);
  EXPECT_GE(t[2], t[1]);
}

TEST_F(TimestampQuery, CreationErrorsNameTheRule) {
  wgpu::QuerySet set;
  CapturedError e = Capture([&] { set = MakeSet(4, "occlusion", wgpu::QueryType::Occlusion); });
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("[QuerySet \"occlusion\"] type is Occlusion"), std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("render passes"), std::string::npos) << e.message;
  ASSERT_TRUE(set);  // an error object
  e = Capture([&] { set = MakeSet(4097, "huge"); });
  EXPECT_NE(e.message.find("count (4097) exceeds the maximum query set size (4096)"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(Capture([&] { MakeSet(4096, "largest"); }).type, wgpu::ErrorType::NoError);
  // An error object fails what uses it.
  const wgpu::PassTimestampWrites writes{.querySet = set, .beginningOfPassWriteIndex = 0};
  const std::string error =
      FinishError([&](const wgpu::CommandEncoder& c) { BusyPass(c, &writes); });
  EXPECT_NE(error.find("[QuerySet \"huge\"] is invalid"), std::string::npos) << error;

  // Without the feature: no timestamp query sets, no timestampWrites.
  wgpu::Device plain = DeviceWith({});
  ASSERT_TRUE(plain);
  const auto captureOn = [&](const std::function<void()>& fn) {
    std::string message;
    plain.PushErrorScope(wgpu::ErrorFilter::Validation);
    fn();
    Wait(plain.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType, std::string_view m) {
                               message = std::string(m);
                             }));
    return message;
  };
  e.message = captureOn([&] { MakeSet(2, "featureless", wgpu::QueryType::Timestamp, &plain); });
  EXPECT_NE(
      e.message.find("[QuerySet \"featureless\"] type is Timestamp, but the TimestampQuery "
                     "(timestamp-query) feature is not enabled on [Device \"feature device\"]"),
      std::string::npos)
      << e.message;
  const wgpu::PassTimestampWrites other{.querySet = MakeSet(2), .beginningOfPassWriteIndex = 0};
  e.message = captureOn([&] {
    wgpu::CommandEncoder encoder = plain.CreateCommandEncoder();
    wgpu::ComputePassDescriptor d{.timestampWrites = &other};
    encoder.BeginComputePass(&d).End();
    encoder.Finish();
  });
  EXPECT_NE(e.message.find("timestampWrites is set, but the TimestampQuery (timestamp-query) "
                           "feature is not enabled"),
            std::string::npos)
      << e.message;
}

TEST_F(TimestampQuery, TimestampWritesErrorsNameTheRule) {
  wgpu::QuerySet set = MakeSet(4, "four");
  const auto passError = [&](wgpu::PassTimestampWrites writes) {
    return FinishError([&](const wgpu::CommandEncoder& c) { BusyPass(c, &writes); });
  };
  std::string e = passError({.querySet = set, .beginningOfPassWriteIndex = 4});
  EXPECT_NE(e.find("timestampWrites.beginningOfPassWriteIndex (4) is not less than the count (4) "
                   "of [QuerySet \"four\"]"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("While encoding [CommandEncoder (unlabeled)].BeginComputePass"),
            std::string::npos)
      << e;
  e = passError({.querySet = set, .endOfPassWriteIndex = 7});
  EXPECT_NE(e.find("timestampWrites.endOfPassWriteIndex (7) is not less than"), std::string::npos)
      << e;
  e = passError({.querySet = set, .beginningOfPassWriteIndex = 1, .endOfPassWriteIndex = 1});
  EXPECT_NE(e.find("beginningOfPassWriteIndex and endOfPassWriteIndex are both 1"),
            std::string::npos)
      << e;
  e = passError({.querySet = set});
  EXPECT_NE(e.find("sets neither beginningOfPassWriteIndex nor endOfPassWriteIndex"),
            std::string::npos)
      << e;
  e = passError({.beginningOfPassWriteIndex = 0});
  EXPECT_NE(e.find("timestampWrites.querySet is null"), std::string::npos) << e;
  EXPECT_EQ(passError({.querySet = set, .beginningOfPassWriteIndex = 3, .endOfPassWriteIndex = 0}),
            "");
}

TEST_F(TimestampQuery, ResolveErrorsNameTheRule) {
  wgpu::QuerySet set = MakeSet(4, "four");
  wgpu::Buffer resolved = MakeBuffer(512, kResolveUsage, "resolved");
  wgpu::Buffer plain =
      MakeBuffer(512, wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::Storage, "plain");
  const auto resolveError = [&](uint32_t first, uint32_t count, const wgpu::Buffer& to,
                                uint64_t offset) {
    return FinishError(
        [&](const wgpu::CommandEncoder& c) { c.ResolveQuerySet(set, first, count, to, offset); });
  };
  std::string e = resolveError(0, 1, resolved, 128);
  EXPECT_NE(e.find("Destination offset (128) is not a multiple of 256"), std::string::npos) << e;
  EXPECT_NE(e.find("While encoding [CommandEncoder (unlabeled)].ResolveQuerySet"),
            std::string::npos)
      << e;
  e = resolveError(0, 1, plain, 0);
  EXPECT_NE(e.find("[Buffer \"plain\"] usage (CopySrc|Storage) does not include QueryResolve"),
            std::string::npos)
      << e;
  e = resolveError(4, 0, resolved, 0);
  EXPECT_NE(e.find("First query (4) is not less than the count (4) of [QuerySet \"four\"]"),
            std::string::npos)
      << e;
  e = resolveError(2, 3, resolved, 0);
  EXPECT_NE(e.find("Query range (firstQuery 2, queryCount 3) exceeds the count (4)"),
            std::string::npos)
      << e;
  e = resolveError(1, UINT32_MAX, resolved, 0);  // firstQuery + queryCount wraps
  EXPECT_NE(e.find("exceeds the count (4)"), std::string::npos) << e;
  e = resolveError(0, 4, resolved, 256);  // 32 bytes at 256 fit in 512; at 512 they do not
  EXPECT_EQ(e, "");
  e = resolveError(0, 1, resolved, 512);
  EXPECT_NE(
      e.find("Resolve range (offset 512, size 8) does not fit in [Buffer \"resolved\"] size (512)"),
      std::string::npos)
      << e;
}

TEST_F(TimestampQuery, DestroyedSetFailsTheSubmit) {
  wgpu::QuerySet set = MakeSet(2, "gone");
  set.SetLabel("destroyed");
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  const wgpu::PassTimestampWrites writes{.querySet = set, .beginningOfPassWriteIndex = 0};
  BusyPass(encoder, &writes);
  wgpu::CommandBuffer commands = encoder.Finish();
  set.Destroy();
  const CapturedError e = Capture([&] { queue.Submit(1, &commands); });
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("[QuerySet \"destroyed\"] used in submit while destroyed"),
            std::string::npos)
      << e.message;
  // Encoding with a destroyed set is valid; the submit fails.
  wgpu::Buffer resolved = MakeBuffer(16, kResolveUsage, "resolved");
  encoder = device.CreateCommandEncoder();
  encoder.ResolveQuerySet(set, 0, 2, resolved, 0);
  commands = encoder.Finish();
  EXPECT_NE(
      Capture([&] { queue.Submit(1, &commands); }).message.find("used in submit while destroyed"),
      std::string::npos);
}

TEST_F(TimestampQuery, CommandBufferKeepsTheSetAlive) {
  wgpu::Buffer resolved = MakeBuffer(16, kResolveUsage, "resolved");
  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  {
    wgpu::QuerySet set = MakeSet(2);
    const wgpu::PassTimestampWrites writes{
        .querySet = set, .beginningOfPassWriteIndex = 0, .endOfPassWriteIndex = 1};
    BusyPass(encoder, &writes);
    encoder.ResolveQuerySet(set, 0, 2, resolved, 0);
  }
  Submit(encoder);
  const std::vector<uint64_t> t = Read<uint64_t>(resolved, 2);
  EXPECT_NE(t[0], 0u);
  EXPECT_GE(t[1], t[0]);
}

// The C API: the feature, a query set, a pass's timestampWrites and a resolve, read back.
TEST_F(TimestampQuery, CApiRoundTrip) {
  WGPUInstance cInstance = wgpuCreateInstance(nullptr);
  ASSERT_NE(cInstance, nullptr);
  WGPUAdapter cAdapter = RequestAdapterC(cInstance);
  ASSERT_NE(cAdapter, nullptr);
  ASSERT_TRUE(wgpuAdapterHasFeature(cAdapter, WGPUFeatureName_TimestampQuery));
  WGPUDevice cDevice = RequestDeviceC(cAdapter, {WGPUFeatureName_TimestampQuery});
  ASSERT_NE(cDevice, nullptr);
  EXPECT_TRUE(wgpuDeviceHasFeature(cDevice, WGPUFeatureName_TimestampQuery));

  WGPUQuerySetDescriptor qd = WGPU_QUERY_SET_DESCRIPTOR_INIT;
  qd.label = WGPUStringView{"c set", WGPU_STRLEN};
  qd.type = WGPUQueryType_Timestamp;
  qd.count = 2;
  WGPUQuerySet set = wgpuDeviceCreateQuerySet(cDevice, &qd);
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(wgpuQuerySetGetCount(set), 2u);
  EXPECT_EQ(wgpuQuerySetGetType(set), WGPUQueryType_Timestamp);
  wgpuQuerySetSetLabel(set, WGPUStringView{"c timestamps", WGPU_STRLEN});
  wgpuQuerySetAddRef(set);
  wgpuQuerySetRelease(set);

  WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
  bd.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
  bd.size = 16;
  WGPUBuffer resolved = wgpuDeviceCreateBuffer(cDevice, &bd);
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  WGPUBuffer readback = wgpuDeviceCreateBuffer(cDevice, &bd);

  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(cDevice, nullptr);
  WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  writes.querySet = set;
  writes.beginningOfPassWriteIndex = 0;
  writes.endOfPassWriteIndex = 1;
  WGPUComputePassDescriptor pd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  pd.timestampWrites = &writes;
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &pd);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  auto* resolve = reinterpret_cast<WGPUProcCommandEncoderResolveQuerySet>(
      wgpuGetProcAddress(WGPUStringView{"wgpuCommandEncoderResolveQuerySet", WGPU_STRLEN}));
  ASSERT_EQ(resolve, &wgpuCommandEncoderResolveQuerySet);
  resolve(encoder, set, 0, 2, resolved, 0);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, resolved, 0, readback, 0, 16);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  ASSERT_NE(commands, nullptr);
  WGPUQueue cQueue = wgpuDeviceGetQueue(cDevice);
  wgpuDevicePushErrorScope(cDevice, WGPUErrorFilter_Validation);
  wgpuQueueSubmit(cQueue, 1, &commands);
  WGPUErrorType caught = WGPUErrorType_Unknown;
  WGPUPopErrorScopeCallbackInfo pi = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  pi.mode = WGPUCallbackMode_AllowSpontaneous;
  pi.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView, void* out, void*) {
    *static_cast<WGPUErrorType*>(out) = type;
  };
  pi.userdata1 = &caught;
  wgpuDevicePopErrorScope(cDevice, pi);
  EXPECT_EQ(caught, WGPUErrorType_NoError);

  bool mapped = false;
  WGPUBufferMapCallbackInfo mi = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  mi.mode = WGPUCallbackMode_WaitAnyOnly;
  mi.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* out, void*) {
    *static_cast<bool*>(out) = status == WGPUMapAsyncStatus_Success;
  };
  mi.userdata1 = &mapped;
  WGPUFutureWaitInfo wait{wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, 16, mi), 0};
  EXPECT_EQ(wgpuInstanceWaitAny(cInstance, 1, &wait, UINT64_MAX), WGPUWaitStatus_Success);
  ASSERT_TRUE(mapped);
  uint64_t t[2];
  std::memcpy(t, wgpuBufferGetConstMappedRange(readback, 0, 16), sizeof t);
  EXPECT_NE(t[0], 0u);
  EXPECT_GE(t[1], t[0]);
  wgpuBufferUnmap(readback);

  wgpuQuerySetDestroy(set);
  wgpuCommandBufferRelease(commands);
  wgpuCommandEncoderRelease(encoder);
  wgpuQueueRelease(cQueue);
  wgpuBufferRelease(readback);
  wgpuBufferRelease(resolved);
  wgpuQuerySetRelease(set);
  wgpuDeviceRelease(cDevice);
  wgpuAdapterRelease(cAdapter);
  wgpuInstanceRelease(cInstance);
}

}  // namespace
}  // namespace shim_test
