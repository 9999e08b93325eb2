// Adapters, device requests and limits, device loss and out-of-memory.
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

#include "shim_test.h"

namespace shim_test {
namespace {

using wgpu::BufferUsage;

class DeviceTest : public ShimTest {};

// Waits that block until shortly before a submission's expected end and poll from there (a GPU's
// way) and waits that poll briefly and block (a CPU device's): every wait sees its submission's
// result, whether the expectation (the last wait's length) is too short or too long, and a wait
// with a timeout returns when it runs out.
TEST_F(DeviceTest, WaitsSeeEveryResultAndKeepTheirTimeoutsHoweverTheyPoll) {
  // A thousand steps of a linear congruential generator on b[0] a dispatch (a[0] is 0); a long
  // submission runs 2,000 dispatches in a row (tens of milliseconds on lavapipe, whose loops end
  // after 65,535 iterations), a short one a single dispatch.
  const wgpu::ComputePipeline pipeline = Pipeline(
      Kernel("uint",
             "if (i == 0u) { uint x = b[0] + a[0]; for (uint j = 0u; j < 1000u; ++j) { x = x * "
             "1664525u + 1013904223u; } b[0] = x; }"),
      "lcg");
  const wgpu::Buffer in = Upload(std::vector<uint32_t>{0}, BufferUsage::Storage, "zero");
  const wgpu::Buffer out =
      MakeBuffer(4, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst, "x");
  const wgpu::BindGroup group = Group(pipeline, 0, {in, out});
  constexpr uint32_t kLong = 2000, kShort = 1;
  for (const bool nearTheEnd : {true, false}) {
    device.SetWaitsPollNearTheEndForTesting(nearTheEnd);
    uint32_t seed = 1;
    for (const uint32_t dispatches : {kLong, kShort, kLong, kLong, kShort, kShort, kLong}) {
      ++seed;
      queue.WriteBuffer(out, 0, &seed, 4);
      auto encoder = device.CreateCommandEncoder();
      auto pass = encoder.BeginComputePass();
      pass.SetPipeline(pipeline);
      pass.SetBindGroup(0, group);
      for (uint32_t d = 0; d < dispatches; ++d) pass.DispatchWorkgroups(1);
      pass.End();
      Submit(encoder);
      if (dispatches == kLong) {
        const wgpu::Future done = queue.OnSubmittedWorkDone(
            wgpu::CallbackMode::WaitAnyOnly, [](wgpu::QueueWorkDoneStatus, std::string_view) {});
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(instance.WaitAny(done, 1'000'000), wgpu::WaitStatus::TimedOut);
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
        Wait(done);
      }
      uint32_t x = seed;
      for (uint32_t k = 0; k < dispatches * 1000; ++k) x = x * 1664525u + 1013904223u;
      EXPECT_EQ(Read<uint32_t>(out, 1)[0], x)
          << dispatches << " dispatches, near the end " << nearTheEnd;
    }
  }
}

TEST_F(DeviceTest, AdapterInfoAndLimitsArePlausible) {
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  EXPECT_FALSE(std::string_view(info.device).empty());
  EXPECT_EQ(info.backendType, wgpu::BackendType::Vulkan);
  wgpu::Limits a;
  adapter.GetLimits(&a);
  const wgpu::Limits def = wgpu::DefaultLimits();
  EXPECT_GE(a.maxStorageBufferBindingSize, def.maxStorageBufferBindingSize);
  EXPECT_GE(a.maxComputeWorkgroupsPerDimension, def.maxComputeWorkgroupsPerDimension);
  EXPECT_LE(a.minStorageBufferOffsetAlignment, 256u);
  // Without required limits, a device gets WebGPU's defaults, not the adapter's.
  wgpu::Limits d;
  device.GetLimits(&d);
  EXPECT_EQ(d.maxBufferSize, def.maxBufferSize);
  EXPECT_EQ(d.maxComputeInvocationsPerWorkgroup, def.maxComputeInvocationsPerWorkgroup);
  EXPECT_EQ(d.minStorageBufferOffsetAlignment, 256u);
}

TEST_F(DeviceTest, RequestingTheAdaptersFullLimits) {
  wgpu::Limits a;
  adapter.GetLimits(&a);
  auto full = MakeDevice(&a);
  ASSERT_TRUE(full);
  wgpu::Limits d;
  full.GetLimits(&d);
  EXPECT_EQ(d.maxBufferSize, a.maxBufferSize);
  EXPECT_EQ(d.maxStorageBufferBindingSize, a.maxStorageBufferBindingSize);
  EXPECT_EQ(d.minStorageBufferOffsetAlignment, a.minStorageBufferOffsetAlignment);
}

TEST_F(DeviceTest, LimitsBeyondTheAdapterAreRefused) {
  wgpu::Limits a;
  adapter.GetLimits(&a);
  wgpu::Limits tooMuch;
  tooMuch.maxBufferSize = a.maxBufferSize + 1;
  wgpu::DeviceDescriptor desc;
  desc.requiredLimits = &tooMuch;
  wgpu::RequestDeviceStatus status = wgpu::RequestDeviceStatus::Success;
  std::string message;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::RequestDeviceStatus s, wgpu::Device, std::string_view m) {
                               status = s;
                               message = m;
                             }));
  EXPECT_EQ(status, wgpu::RequestDeviceStatus::Error);
  EXPECT_NE(message.find("maxBufferSize"), std::string::npos) << message;

  wgpu::Limits badAlign;
  badAlign.minStorageBufferOffsetAlignment = 48;
  desc.requiredLimits = &badAlign;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::RequestDeviceStatus s, wgpu::Device, std::string_view m) {
                               status = s;
                               message = m;
                             }));
  EXPECT_EQ(status, wgpu::RequestDeviceStatus::Error);
  EXPECT_NE(message.find("power of two"), std::string::npos) << message;
}

TEST_F(DeviceTest, AdapterSelectionByName) {
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  wgpu::RequestAdapterOptions options;
  options.adapterName = std::string_view(info.device).substr(0, 4);
  ASSERT_EQ(instance.EnumerateAdapters(&options).size() >= 1, true);
  options.adapterName = "no such adapter anywhere";
  wgpu::RequestAdapterStatus status = wgpu::RequestAdapterStatus::Success;
  std::string message;
  Wait(instance.RequestAdapter(&options, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::RequestAdapterStatus s, wgpu::Adapter a, std::string_view m) {
                                 status = s;
                                 message = m;
                                 EXPECT_FALSE(a);
                               }));
  EXPECT_EQ(status, wgpu::RequestAdapterStatus::Unavailable);
  EXPECT_NE(message.find("no such adapter anywhere"), std::string::npos) << message;
  EXPECT_NE(message.find(info.device), std::string::npos) << "should list the devices found: " << message;
}

TEST_F(DeviceTest, FallbackAdapterIsTheCpuOne) {
  wgpu::RequestAdapterOptions options;
  options.forceFallbackAdapter = true;
  for (auto& a : instance.EnumerateAdapters(&options)) {
    wgpu::AdapterInfo info;
    a.GetInfo(&info);
    EXPECT_EQ(info.adapterType, wgpu::AdapterType::CPU) << info.device;
  }
}

TEST_F(DeviceTest, DestroyLosesTheDeviceAndAbortsMaps) {
  wgpu::DeviceLostReason reason = wgpu::DeviceLostReason::Unknown;
  std::string lostMessage;
  int lostCalls = 0;
  wgpu::DeviceDescriptor desc;
  desc.label = "doomed";
  desc.SetDeviceLostCallback(wgpu::CallbackMode::AllowProcessEvents,
                             [&](const wgpu::Device&, wgpu::DeviceLostReason r, std::string_view m) {
                               reason = r;
                               lostMessage = m;
                               ++lostCalls;
                             });
  wgpu::Device doomed;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::RequestDeviceStatus, wgpu::Device d, std::string_view) { doomed = d; }));
  ASSERT_TRUE(doomed);
  wgpu::BufferDescriptor bd;
  bd.size = 16;
  bd.usage = BufferUsage::MapRead | BufferUsage::CopyDst;
  auto buffer = doomed.CreateBuffer(&bd);
  doomed.Destroy();
  instance.ProcessEvents();
  EXPECT_EQ(lostCalls, 1);
  EXPECT_EQ(reason, wgpu::DeviceLostReason::Destroyed);
  // After loss, calls are silently ignored and maps fail without errors.
  wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::Success;
  Wait(buffer.MapAsync(wgpu::MapMode::Read, 0, 16, wgpu::CallbackMode::AllowProcessEvents,
                       [&](wgpu::MapAsyncStatus s, std::string_view) { status = s; }));
  EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted);
  bd.usage = BufferUsage::None;
  doomed.CreateBuffer(&bd);  // invalid, but a lost device reports nothing
  auto encoder = doomed.CreateCommandEncoder();
  auto commands = encoder.Finish();
  doomed.GetQueue().Submit(1, &commands);
  doomed.Destroy();
  instance.ProcessEvents();
  EXPECT_EQ(lostCalls, 1);
}

// Allocating past the heap is a WebGPU out-of-memory error, never a crash; freeing recovers.
TEST_F(DeviceTest, OutOfMemoryIsAnErrorNotACrash) {
  wgpu::Limits a;
  adapter.GetLimits(&a);
  auto big = MakeDevice(&a);
  ASSERT_TRUE(big);
  wgpu::BufferDescriptor bd;
  bd.label = "hog";
  bd.size = a.maxBufferSize & ~uint64_t{3};
  bd.usage = BufferUsage::Storage;
  std::vector<wgpu::Buffer> hogs;
  wgpu::ErrorType type = wgpu::ErrorType::NoError;
  std::string message;
  for (int i = 0; i < 256 && type == wgpu::ErrorType::NoError; ++i) {
    big.PushErrorScope(wgpu::ErrorFilter::OutOfMemory);
    hogs.push_back(big.CreateBuffer(&bd));
    Wait(big.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                           [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType t, std::string_view m) {
                             type = t;
                             message = m;
                           }));
  }
  EXPECT_EQ(type, wgpu::ErrorType::OutOfMemory);
  EXPECT_NE(message.find("\"hog\""), std::string::npos) << message;
  for (auto& h : hogs) h.Destroy();
  hogs.clear();
  big.PushErrorScope(wgpu::ErrorFilter::OutOfMemory);
  bd.size = 1 << 20;
  auto after = big.CreateBuffer(&bd);
  Wait(big.PopErrorScope(wgpu::CallbackMode::AllowProcessEvents,
                         [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType t, std::string_view) { type = t; }));
  EXPECT_EQ(type, wgpu::ErrorType::NoError);
}

TEST_F(DeviceTest, WorkDoneFutureAndSpontaneousCallbacks) {
  auto b = MakeBuffer(64, BufferUsage::CopyDst | BufferUsage::CopySrc, "b");
  std::vector<uint32_t> v(16, 3);
  queue.WriteBuffer(b, 0, v.data(), 64);
  bool done = false;
  Wait(queue.OnSubmittedWorkDone(wgpu::CallbackMode::WaitAnyOnly,
                                 [&](wgpu::QueueWorkDoneStatus s, std::string_view) {
                                   done = s == wgpu::QueueWorkDoneStatus::Success;
                                 }));
  EXPECT_TRUE(done);
  // A spontaneous callback whose result is known runs before the call returns.
  bool ran = false;
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  device.PopErrorScope(wgpu::CallbackMode::AllowSpontaneous,
                       [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType, std::string_view) { ran = true; });
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace shim_test

// Instances come and go (one per test here, one per tool invocation in an app); some drivers
// (NVIDIA 580) refuse vkCreateInstance after ~29 create/destroy cycles, so the shim shares one
// VkInstance per configuration. Each wgpu::Instance must still work on its own.
TEST(InstanceLifetime, FortyInstancesInOneProcessEachFindAnAdapter) {
  for (int i = 0; i < 40; ++i) {
    wgpu::Instance instance = wgpu::CreateInstance();
    std::string message;
    bool found = false;
    instance.WaitAny(instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                             [&](wgpu::RequestAdapterStatus status, wgpu::Adapter a,
                                                 std::string_view m) {
                                               found = status == wgpu::RequestAdapterStatus::Success && a;
                                               message = m;
                                             }),
                     UINT64_MAX);
    ASSERT_TRUE(found) << "instance " << i << ": " << message;
  }
}

namespace shim_test {
namespace {

// A module from GLSL on a device other than the fixture's.
wgpu::ShaderModule SpirvModuleOn(const wgpu::Device& d, std::string_view glsl) {
  const auto words = CompileGlsl(glsl);
  wgpu::ShaderSourceSPIRV src;
  src.codeSize = static_cast<uint32_t>(words.size());
  src.code = words.data();
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &src;
  return d.CreateShaderModule(&md);
}

// The blob-cache hooks: a device stores its pipeline cache when destroyed, a later device loads
// it under the same key, and data the driver cannot use (garbage) is ignored, not fatal.
TEST_F(DeviceTest, PipelineCacheRoundTripsThroughTheBlobCacheHooks) {
  std::map<std::string, std::vector<uint8_t>> store;
  std::vector<std::string> loads;
  auto makeDevice = [&] {
    wgpu::DawnCacheDeviceDescriptor cache{{.isolationKey = "test "}};
    // Dawn's protocol: asked with an empty value, report the size; then copy the bytes.
    cache.SetLoadCacheDataCallback([&](std::span<const std::byte> key, std::span<std::byte> value) {
      const std::string k(reinterpret_cast<const char*>(key.data()), key.size());
      if (value.empty()) loads.push_back(k);
      auto it = store.find(k);
      if (it == store.end()) return size_t{0};
      if (!value.empty())
        std::memcpy(value.data(), it->second.data(), std::min(value.size(), it->second.size()));
      return it->second.size();
    });
    cache.SetStoreCacheDataCallback(
        [&](std::span<const std::byte> key, std::span<const std::byte> value) {
          const auto* bytes = reinterpret_cast<const uint8_t*>(value.data());
          store[std::string(reinterpret_cast<const char*>(key.data()), key.size())].assign(
              bytes, bytes + value.size());
        });
    wgpu::DeviceDescriptor desc{{.nextInChain = &cache}};
    wgpu::Device d;
    Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::RequestDeviceStatus, wgpu::Device dev, std::string_view) { d = dev; }));
    return d;
  };
  auto compileOn = [&](wgpu::Device d) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = SpirvModuleOn(d, Kernel("uint", "b[i] = a[i] + 7u;"));
    return d.CreateComputePipeline(&pd);
  };
  {
    wgpu::Device first = makeDevice();
    ASSERT_TRUE(first);
    compileOn(first);
  }
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].rfind("test vkpipelinecache-", 0), 0u) << loads[0];
  ASSERT_EQ(store.size(), 1u);
  EXPECT_GE(store.begin()->second.size(), 32u);  // at least the Vulkan cache header
  {
    wgpu::Device second = makeDevice();
    ASSERT_TRUE(second);
    EXPECT_TRUE(compileOn(second));
  }
  EXPECT_EQ(loads.back(), loads.front());
  store.begin()->second.assign(100, 0xAB);  // garbage
  wgpu::Device third = makeDevice();
  ASSERT_TRUE(third);
  EXPECT_TRUE(compileOn(third));
}

// A device that lives on (a runtime's, for the whole process) still persists its pipeline cache:
// the store runs once its async builds have drained, not only when it is destroyed.
TEST_F(DeviceTest, AsyncBuildsStoreThePipelineCacheWhileTheDeviceLives) {
  std::mutex mutex;
  int stores = 0;
  wgpu::DawnCacheDeviceDescriptor cache;
  cache.SetLoadCacheDataCallback(
      [](std::span<const std::byte>, std::span<std::byte>) { return size_t{0}; });
  cache.SetStoreCacheDataCallback([&](std::span<const std::byte>, std::span<const std::byte> data) {
    std::lock_guard lock(mutex);  // stores come from build threads
    EXPECT_GE(data.size(), 32u);
    ++stores;
  });
  wgpu::DeviceDescriptor desc;
  desc.nextInChain = &cache;
  wgpu::Device d;
  Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::RequestDeviceStatus, wgpu::Device dev, std::string_view) { d = dev; }));
  ASSERT_TRUE(d);
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = SpirvModuleOn(d, Kernel("uint", "b[i] = a[i] * 3u;"));
  wgpu::ComputePipeline pipeline;
  Wait(d.CreateComputePipelineAsync(&pd, wgpu::CallbackMode::WaitAnyOnly,
                                    [&](wgpu::CreatePipelineAsyncStatus, wgpu::ComputePipeline p, std::string_view) {
                                      pipeline = std::move(p);
                                    }));
  EXPECT_TRUE(pipeline);
  std::lock_guard lock(mutex);
  EXPECT_EQ(stores, 1);
}

}  // namespace
}  // namespace shim_test

namespace shim_test {
namespace {

// ---- Lifetimes: dropping every handle frees the device once the GPU is done ----

class DeviceLifetime : public ShimTest {
 protected:
  wgpu::Buffer BufferOn(const wgpu::Device& d, uint64_t size, BufferUsage usage, std::string label = "") {
    wgpu::BufferDescriptor bd;
    bd.label = label;
    bd.size = size;
    bd.usage = usage;
    return d.CreateBuffer(&bd);
  }
  // Submits one copy of `size` bytes from `src` to `dst`.
  void SubmitCopy(const wgpu::Device& d, const wgpu::Buffer& src, const wgpu::Buffer& dst, uint64_t size) {
    auto encoder = d.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(src, 0, dst, 0, size);
    auto commands = encoder.Finish();
    d.GetQueue().Submit(1, &commands);
  }
};

// Handles dropped while a submit is in flight: the in-flight bookkeeping must not keep the
// device (and with it every buffer's memory) alive forever.
TEST_F(DeviceLifetime, DroppingEverythingMidSubmitFreesTheDevice) {
  const uint64_t devices = wgpu::GetLiveDeviceCountForTesting();
  const uint64_t memory = wgpu::GetBufferMemoryInUseForTesting();
  // 32 MiB copies are still running when Submit returns on lavapipe (8 MiB ones were often done
  // by the submit's own Tick, which then freed everything even before the fix).
  constexpr uint64_t kSize = 32ull << 20;
  for (int i = 0; i < 4; ++i) {
    wgpu::Device d = MakeDevice();
    ASSERT_TRUE(d);
    auto src = BufferOn(d, kSize, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst);
    auto dst = BufferOn(d, kSize, BufferUsage::Storage | BufferUsage::CopySrc | BufferUsage::CopyDst);
    std::vector<uint32_t> data(1024, 7);
    d.GetQueue().WriteBuffer(src, 0, data.data(), data.size() * 4);
    auto encoder = d.CreateCommandEncoder();
    encoder.CopyBufferToBuffer(src, 0, dst, 0, kSize);
    encoder.CopyBufferToBuffer(dst, 0, src, 0, kSize);
    auto commands = encoder.Finish();
    d.GetQueue().Submit(1, &commands);
    // Every handle goes out of scope here, the submit most likely still running.
  }
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devices);
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), memory);
}

// A buffer creation records a zero-fill in the queue's pending batch; dropping everything before
// any submit must not leave that batch owning the device.
TEST_F(DeviceLifetime, DroppingEverythingBeforeAnySubmitFreesTheDevice) {
  const uint64_t devices = wgpu::GetLiveDeviceCountForTesting();
  const uint64_t memory = wgpu::GetBufferMemoryInUseForTesting();
  for (int i = 0; i < 3; ++i) {
    wgpu::Device d = MakeDevice();
    ASSERT_TRUE(d);
    auto b = BufferOn(d, 1024, BufferUsage::Storage | BufferUsage::CopyDst);
    std::vector<uint32_t> data(256, 1);
    d.GetQueue().WriteBuffer(b, 0, data.data(), 1024);
  }
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devices);
  EXPECT_EQ(wgpu::GetBufferMemoryInUseForTesting(), memory);
}

// A buffer dropped while it is still listed in the pending batch (written, not yet submitted)
// on a device that lives on: its memory goes once that batch has run, and the batch is fine.
// (Guards the pending batch's non-owning list: run it under ASan.)
TEST_F(DeviceLifetime, BufferDroppedWithPendingWritesIsFreedAfterTheBatch) {
  auto keep = MakeBuffer(1024, BufferUsage::Storage | BufferUsage::CopyDst | BufferUsage::CopySrc, "kept");
  const uint64_t withKept = wgpu::GetBufferMemoryInUseForTesting();
  {
    auto dropped = MakeBuffer(1 << 20, BufferUsage::Storage | BufferUsage::CopyDst, "dropped");
    std::vector<uint32_t> data(256, 9);
    queue.WriteBuffer(dropped, 0, data.data(), 1024);
  }
  std::vector<uint32_t> data(256, 5);
  queue.WriteBuffer(keep, 0, data.data(), 1024);
  EXPECT_EQ(Read<uint32_t>(keep, 256), data);
  WaitIdle();
  instance.ProcessEvents();
  EXPECT_LE(wgpu::GetBufferMemoryInUseForTesting(), withKept + (8ull << 20))
      << "only staging may remain; the dropped buffer's 1 MiB must be gone";
}

// A map pending on a buffer whose handles are all dropped: the map is aborted and nothing keeps
// the device alive; the callback still runs (Aborted) when events are processed.
TEST_F(DeviceLifetime, DroppingABufferWithAMapPendingFreesTheDevice) {
  const uint64_t devices = wgpu::GetLiveDeviceCountForTesting();
  wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::CallbackCancelled;
  {
    wgpu::Device d = MakeDevice();
    ASSERT_TRUE(d);
    auto b = BufferOn(d, 64, BufferUsage::MapRead | BufferUsage::CopyDst);
    b.MapAsync(wgpu::MapMode::Read, 0, 64, wgpu::CallbackMode::AllowProcessEvents,
               [&](wgpu::MapAsyncStatus s, std::string_view) { status = s; });
  }
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devices);
  instance.ProcessEvents();
  EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted);
}

// ---- Device.Destroy() and maps ----

TEST_F(DeviceLifetime, DestroyAbortsAPendingMapAndUnmaps) {
  wgpu::Device d = MakeDevice();
  ASSERT_TRUE(d);
  auto pending = BufferOn(d, 64, BufferUsage::MapRead | BufferUsage::CopyDst, "pending");
  auto mapped = BufferOn(d, 64, BufferUsage::MapWrite | BufferUsage::CopySrc, "mapped");
  auto atCreation = [&] {
    wgpu::BufferDescriptor bd;
    bd.size = 64;
    bd.usage = BufferUsage::Storage;
    bd.mappedAtCreation = true;
    return d.CreateBuffer(&bd);
  }();
  bool mappedOk = false;
  Wait(mapped.MapAsync(wgpu::MapMode::Write, 0, 64, wgpu::CallbackMode::AllowProcessEvents,
                       [&](wgpu::MapAsyncStatus s, std::string_view) {
                         mappedOk = s == wgpu::MapAsyncStatus::Success;
                       }));
  ASSERT_TRUE(mappedOk);
  wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::CallbackCancelled;
  std::string message;
  auto f = pending.MapAsync(wgpu::MapMode::Read, 0, 64, wgpu::CallbackMode::AllowProcessEvents,
                            [&](wgpu::MapAsyncStatus s, std::string_view m) {
                              status = s;
                              message = m;
                            });
  d.Destroy();
  Wait(f);
  EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted) << message;
  EXPECT_NE(message.find("destroyed"), std::string::npos) << message;
  EXPECT_EQ(pending.GetMapState(), wgpu::BufferMapState::Unmapped);
  EXPECT_EQ(pending.GetConstMappedRange(), nullptr);
  // Destroy unmaps every buffer of the device, as WebGPU specifies.
  EXPECT_EQ(mapped.GetMapState(), wgpu::BufferMapState::Unmapped);
  EXPECT_EQ(mapped.GetMappedRange(), nullptr);
  EXPECT_EQ(atCreation.GetMapState(), wgpu::BufferMapState::Unmapped);
  EXPECT_EQ(atCreation.GetMappedRange(), nullptr);
  mapped.Unmap();  // harmless
  atCreation.Unmap();
}

TEST_F(DeviceLifetime, DestroyWithAMapPendingOnInFlightWork) {
  wgpu::Device d = MakeDevice();
  ASSERT_TRUE(d);
  constexpr uint64_t kSize = 4ull << 20;
  auto src = BufferOn(d, kSize, BufferUsage::Storage | BufferUsage::CopySrc);
  auto readback = BufferOn(d, kSize, BufferUsage::MapRead | BufferUsage::CopyDst, "readback");
  SubmitCopy(d, src, readback, kSize);
  wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::CallbackCancelled;
  auto f = readback.MapAsync(wgpu::MapMode::Read, 0, kSize, wgpu::CallbackMode::AllowProcessEvents,
                             [&](wgpu::MapAsyncStatus s, std::string_view) { status = s; });
  d.Destroy();
  Wait(f);
  EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted);
  EXPECT_EQ(readback.GetMapState(), wgpu::BufferMapState::Unmapped);
  EXPECT_EQ(readback.GetConstMappedRange(), nullptr);
}

// ---- device loss (Device::ForceLoss stands in for a driver reset, which lavapipe cannot do) ----

TEST_F(DeviceLifetime, ForcedLossWithWorkInFlightAbortsMapsDropsLaterWorkAndFreesTheDevice) {
  const uint64_t devices = wgpu::GetLiveDeviceCountForTesting();
  {
    wgpu::DeviceDescriptor desc;
    wgpu::DeviceLostReason reason = wgpu::DeviceLostReason::Destroyed;
    std::string lostMessage;
    int lostCalls = 0, uncapturedHere = 0;
    desc.SetDeviceLostCallback(wgpu::CallbackMode::AllowSpontaneous,
                               [&](const wgpu::Device&, wgpu::DeviceLostReason r, std::string_view m) {
                                 reason = r;
                                 lostMessage = m;
                                 ++lostCalls;
                               });
    desc.SetUncapturedErrorCallback(
        [&](const wgpu::Device&, wgpu::ErrorType, std::string_view) { ++uncapturedHere; });
    wgpu::Device d;
    Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::RequestDeviceStatus, wgpu::Device got, std::string_view) { d = got; }));
    ASSERT_TRUE(d);
    constexpr uint64_t kSize = 4ull << 20;
    auto src = BufferOn(d, kSize, BufferUsage::Storage | BufferUsage::CopySrc);
    auto readback = BufferOn(d, kSize, BufferUsage::MapRead | BufferUsage::CopyDst, "readback");
    SubmitCopy(d, src, readback, kSize);
    wgpu::MapAsyncStatus status = wgpu::MapAsyncStatus::Success;
    std::string mapMessage;
    auto f = readback.MapAsync(wgpu::MapMode::Read, 0, kSize, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::MapAsyncStatus s, std::string_view m) {
                                 status = s;
                                 mapMessage = m;
                               });
    d.ForceLoss(wgpu::DeviceLostReason::Unknown, "GPU reset by the driver");
    EXPECT_EQ(lostCalls, 1);  // AllowSpontaneous: at once
    EXPECT_EQ(reason, wgpu::DeviceLostReason::Unknown);
    EXPECT_EQ(lostMessage, "GPU reset by the driver");
    Wait(f);
    EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted);
    EXPECT_NE(mapMessage.find("lost"), std::string::npos) << mapMessage;
    EXPECT_EQ(readback.GetConstMappedRange(), nullptr);
    // Later work is dropped without errors, maps fail, a second loss or a destroy reports nothing.
    SubmitCopy(d, src, readback, kSize);
    status = wgpu::MapAsyncStatus::Success;
    Wait(readback.MapAsync(wgpu::MapMode::Read, 0, kSize, wgpu::CallbackMode::AllowProcessEvents,
                           [&](wgpu::MapAsyncStatus s, std::string_view) { status = s; }));
    EXPECT_EQ(status, wgpu::MapAsyncStatus::Aborted);
    d.ForceLoss(wgpu::DeviceLostReason::Unknown, "again");
    d.Destroy();
    instance.ProcessEvents();
    EXPECT_EQ(lostCalls, 1);
    EXPECT_EQ(uncapturedHere, 0);
  }
  // Every handle dropped: the lost device and its in-flight work are freed.
  instance.ProcessEvents();
  EXPECT_EQ(wgpu::GetLiveDeviceCountForTesting(), devices);
}

}  // namespace
}  // namespace shim_test
