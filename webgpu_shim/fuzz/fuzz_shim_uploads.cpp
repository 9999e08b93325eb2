// libFuzzer target over sequences of buffer uploads: Queue::WriteBuffer (the staging chunks),
// buffers mapped at creation, MapAsync(Write), copies and submits, on three buffers, with sizes
// and offsets from the input — in range or not. Every byte of every buffer is checked against a
// CPU copy at the end; a call out of range must give a validation error and change nothing.
// Any crash, sanitizer report, mismatch or wrong error aborts.
#include <webgpu/webgpu_cpp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "fuzz_shim_uploads: %s\n", what);
  std::abort();
}

struct Gpu {
  wgpu::Instance instance;
  wgpu::Device device;
  wgpu::Queue queue;
  int errors = 0;  // validation errors since the last check

  Gpu() {
    instance = wgpu::CreateInstance();
    wgpu::Adapter adapter;
    instance.WaitAny(instance.RequestAdapter(nullptr, wgpu::CallbackMode::WaitAnyOnly,
                                             [&](wgpu::RequestAdapterStatus, wgpu::Adapter a, wgpu::StringView) {
                                               adapter = std::move(a);
                                             }),
                     UINT64_MAX);
    if (!adapter) Fail("no adapter");
    wgpu::DeviceDescriptor desc;
    desc.SetUncapturedErrorCallback([this](const wgpu::Device&, wgpu::ErrorType type, wgpu::StringView) {
      if (type != wgpu::ErrorType::Validation) Fail("an error other than a validation error");
      ++errors;
    });
    instance.WaitAny(adapter.RequestDevice(&desc, wgpu::CallbackMode::WaitAnyOnly,
                                           [&](wgpu::RequestDeviceStatus, wgpu::Device d, wgpu::StringView) {
                                             device = std::move(d);
                                           }),
                     UINT64_MAX);
    if (!device) Fail("no device");
    queue = device.GetQueue();
  }

  void Wait(wgpu::Future f) {
    if (instance.WaitAny(f, UINT64_MAX) != wgpu::WaitStatus::Success) Fail("wait");
  }
};

Gpu& gpu() {
  static Gpu* g = new Gpu;  // one device for the whole run
  return *g;
}

// Reads the input a little at a time; zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool more() const { return at_ < size_; }
  uint32_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t u16() { return u8() | u8() << 8; }
  // 4 bytes … 8 MiB, log-scaled; about half not multiples of 4 when `aligned` is false.
  uint64_t size(bool aligned) {
    const uint32_t shift = u8() % 22;  // up to 2^21 words
    uint64_t words = (uint64_t{1} << shift) + (u16() % (uint64_t{1} << shift));
    uint64_t bytes = words * 4;
    if (!aligned) bytes += u8() % 4;
    return bytes;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

struct Target {
  wgpu::Buffer buffer;
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> Pattern(uint64_t size, uint32_t seed) {
  std::vector<uint8_t> out(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return out;
}

bool InRange(const Target& t, uint64_t offset, uint64_t size) {
  return offset % 4 == 0 && size % 4 == 0 && offset <= t.bytes.size() && size <= t.bytes.size() - offset;
}

// Validation errors expected (an invalid copy gives two: at Finish, and at the Submit of the
// invalid command buffer) or none; anything else aborts.
void Expect(bool error) {
  Gpu& g = gpu();
  g.instance.ProcessEvents();
  if (error ? g.errors == 0 : g.errors != 0)
    Fail(error ? "an out-of-range call gave no validation error" : "a valid call gave an error");
  g.errors = 0;
}

void Check(const Target& t) {
  Gpu& g = gpu();
  wgpu::BufferDescriptor desc;
  desc.size = t.bytes.size();
  desc.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
  wgpu::Buffer readback = g.device.CreateBuffer(&desc);
  wgpu::CommandEncoder encoder = g.device.CreateCommandEncoder();
  encoder.CopyBufferToBuffer(t.buffer, 0, readback, 0, t.bytes.size());
  wgpu::CommandBuffer commands = encoder.Finish();
  g.queue.Submit(1, &commands);
  bool mapped = false;
  g.Wait(readback.MapAsync(wgpu::MapMode::Read, 0, t.bytes.size(), wgpu::CallbackMode::WaitAnyOnly,
                           [&](wgpu::MapAsyncStatus s, wgpu::StringView) { mapped = s == wgpu::MapAsyncStatus::Success; }));
  if (!mapped) Fail("readback did not map");
  const void* p = readback.GetConstMappedRange(0, t.bytes.size());
  if (!p || std::memcmp(p, t.bytes.data(), t.bytes.size()) != 0) Fail("a buffer does not hold what was written");
  readback.Unmap();
  Expect(false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Gpu& g = gpu();
  Input in(data, size);
  std::vector<Target> targets;
  for (uint64_t bytes : {uint64_t{4096}, (uint64_t{1} << 20) + 12, uint64_t{12} << 20}) {
    wgpu::BufferDescriptor desc;
    desc.size = bytes;
    desc.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst | wgpu::BufferUsage::CopySrc;
    targets.push_back({g.device.CreateBuffer(&desc), std::vector<uint8_t>(bytes, 0)});
  }
  for (int op = 0; op < 24 && in.more(); ++op) {
    Target& t = targets[in.u8() % targets.size()];
    const uint32_t kind = in.u8() % 6;
    if (kind == 4) {
      g.queue.Submit(0, nullptr);
      Expect(false);
      continue;
    }
    if (kind == 5) {
      Check(t);
      continue;
    }
    const uint64_t n = in.size(kind != 0);
    // An offset near the start, the end, or past it.
    const uint64_t offset = (in.u8() % 3 == 0 ? t.bytes.size() - std::min<uint64_t>(t.bytes.size(), n) : 0) +
                            uint64_t{4} * in.u16() + (kind == 0 ? in.u8() % 4 : 0);
    const std::vector<uint8_t> pattern = Pattern(n, static_cast<uint32_t>(op * 7919 + n));
    const bool valid = InRange(t, offset, n);
    if (kind == 0) {
      g.queue.WriteBuffer(t.buffer, offset, pattern.data(), n);
    } else {
      // Through a MapWrite buffer: mapped at creation (kind 1) or with MapAsync (2, 3), then
      // copied. Its size is n rounded up to 4 (mappedAtCreation needs that); the copy is what
      // may be out of range.
      const uint64_t uploadSize = (n + 3) / 4 * 4;
      wgpu::BufferDescriptor desc;
      desc.size = uploadSize;
      desc.usage = wgpu::BufferUsage::MapWrite | wgpu::BufferUsage::CopySrc;
      desc.mappedAtCreation = kind == 1;
      wgpu::Buffer upload = g.device.CreateBuffer(&desc);
      if (kind != 1) {
        bool mapped = false;
        g.Wait(upload.MapAsync(wgpu::MapMode::Write, 0, uploadSize, wgpu::CallbackMode::WaitAnyOnly,
                               [&](wgpu::MapAsyncStatus s, wgpu::StringView) { mapped = s == wgpu::MapAsyncStatus::Success; }));
        if (!mapped) Fail("an upload buffer did not map");
      }
      void* p = upload.GetMappedRange(0, uploadSize);
      if (!p) Fail("no mapped range");
      std::memset(p, 0, uploadSize);
      std::memcpy(p, pattern.data(), n);
      upload.Unmap();
      wgpu::CommandEncoder encoder = g.device.CreateCommandEncoder();
      encoder.CopyBufferToBuffer(upload, 0, t.buffer, offset, n);
      wgpu::CommandBuffer commands = encoder.Finish();
      g.queue.Submit(1, &commands);
    }
    Expect(!valid);
    if (valid) std::copy(pattern.begin(), pattern.end(), t.bytes.begin() + static_cast<ptrdiff_t>(offset));
  }
  for (const Target& t : targets) Check(t);
  return 0;
}
