#include "timestamp_conversion.h"

#include <cmath>
#include <cstdlib>

#include "buffer.h"
#include "command_encoder.h"
#include "device.h"
#include "timestamp_to_ns.spv.h"  // generated at build time from shaders/timestamp_to_ns.comp

namespace wgpu::detail {

namespace {
struct PushConstants {
  uint32_t first;
  uint32_t count;
  uint32_t scale;
};
}  // namespace

uint32_t AssumedTimestampScale(float timestampPeriod) {
  double period = timestampPeriod;
  if (const char* v = std::getenv("WEBGPU_SHIM_TIMESTAMP_PERIOD")) {
    char* end = nullptr;
    const double assumed = std::strtod(v, &end);
    if (end != v && assumed > 0) period = assumed;
  }
  const double scale = std::round(period * kNsTimestampScale);
  if (!(scale >= 1)) return kNsTimestampScale;  // a driver reporting 0 (or NaN): assume ns
  return scale >= 4294967295.0 ? UINT32_MAX : static_cast<uint32_t>(scale);
}

TimestampConverter::TimestampConverter(DeviceImpl& device)
    : device_(device), pipeline_(device, kTimestampToNsSpv, 1, sizeof(PushConstants)) {}

void TimestampConverter::Record(CommandEncoderImpl& encoder, BufferImpl& buffer, uint64_t offset,
                                uint32_t count) {
  const uint64_t size = uint64_t{count} * sizeof(uint64_t);
  // The resolve's copies wrote the range: the tracker puts a barrier before the shader, and
  // records its writes for whatever reads the range next.
  const CommandEncoderImpl::Access accesses[] = {
      {&buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, true, offset, size}};
  encoder.PrepareAccesses(accesses);

  // Bind the buffer from an aligned offset so any offset works.
  const uint64_t align = device_.GetLimits().minStorageBufferOffsetAlignment;
  const uint64_t base = offset / align * align;
  const VkDescriptorBufferInfo values{buffer.Vk(), base, offset - base + size};
  const PushConstants pc{static_cast<uint32_t>((offset - base) / 4), count,
                         device_.TimestampScale()};
  pipeline_.Dispatch(encoder, {&values, 1}, &pc, (count + 63) / 64, "timestamp conversion");
}

}  // namespace wgpu::detail
