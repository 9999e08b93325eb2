// WebGPU resolves timestamps in nanoseconds; Vulkan writes ticks of timestampPeriod ns. Where a
// tick is not a nanosecond, ResolveQuerySet runs a small shader over the resolved range that
// scales each value by the period, in 16.16 fixed point: ns = (ticks * P) >> 16.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "internal_pipeline.h"

namespace wgpu::detail {

class BufferImpl;
class DeviceImpl;
class CommandEncoderImpl;

// P for a period of one nanosecond a tick: no conversion.
inline constexpr uint32_t kNsTimestampScale = 65536;

// P = round(period * 65536) for the device's timestampPeriod, or for WEBGPU_SHIM_TIMESTAMP_PERIOD
// where set (a positive number of ns a tick the shim then assumes, to test the conversion on a
// device whose ticks are nanoseconds). Read when a device is created.
uint32_t AssumedTimestampScale(float timestampPeriod);

// The shader's arithmetic on the CPU (32-bit parts, as GLSL 450 has no 64-bit integers): the low
// 64 bits of (ticks * p) >> 16. For testing it against a 128-bit reference.
constexpr uint64_t TicksToNs(uint64_t ticks, uint32_t p) {
  const uint64_t lo = (ticks & 0xffffffffu) * p;  // p1:p0
  const uint64_t hi = (ticks >> 32) * p;          // q2:q1
  const uint64_t mid = (lo >> 32) + (hi & 0xffffffffu);
  const uint32_t p0 = static_cast<uint32_t>(lo);
  const uint32_t w1 = static_cast<uint32_t>(mid);
  const uint32_t w2 = static_cast<uint32_t>((hi >> 32) + (mid >> 32));
  return (uint64_t{(w1 >> 16) | (w2 << 16)} << 32) | ((p0 >> 16) | (w1 << 16));
}

class TimestampConverter {
 public:
  explicit TimestampConverter(DeviceImpl& device);

  // Records the conversion of the `count` values at `offset` in `buffer`, just resolved there,
  // with the device's scale. The caller rebinds its own pipeline afterwards (none is bound
  // between passes, where resolves are).
  void Record(CommandEncoderImpl& encoder, BufferImpl& buffer, uint64_t offset, uint32_t count);

 private:
  DeviceImpl& device_;
  InternalPipeline pipeline_;
};

}  // namespace wgpu::detail
