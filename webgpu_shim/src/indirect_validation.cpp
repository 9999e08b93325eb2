#include "indirect_validation.h"

#include "buffer.h"
#include "command_encoder.h"
#include "device.h"
#include "indirect_validation.spv.h"  // generated at build time from shaders/indirect_validation.comp

namespace wgpu::detail {

namespace {
struct PushConstants {
  uint32_t srcWord;
  uint32_t maxCount;
};
}  // namespace

IndirectValidator::IndirectValidator(DeviceImpl& device)
    : device_(device), pipeline_(device, kIndirectValidationSpv, 2, sizeof(PushConstants)) {}

std::pair<BufferImpl*, uint64_t> IndirectValidator::Record(CommandEncoderImpl& encoder,
                                                           BufferImpl& indirect, uint64_t offset) {
  BufferImpl* scratch = encoder.IndirectScratch();
  if (!scratch || !scratch->IsValid()) return {nullptr, 0};
  const CommandEncoderImpl::Access accesses[] = {
      {&indirect, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, false},
      {scratch, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, true}};
  encoder.PrepareAccesses(accesses);

  // Bind the user's buffer from an aligned offset so any offset works.
  const uint64_t align = device_.GetLimits().minStorageBufferOffsetAlignment;
  const uint64_t base = offset / align * align;
  const VkDescriptorBufferInfo buffers[] = {{indirect.Vk(), base, offset - base + 12},
                                            {scratch->Vk(), 0, 16}};
  const PushConstants pc{static_cast<uint32_t>((offset - base) / 4),
                         device_.GetLimits().maxComputeWorkgroupsPerDimension};
  if (!pipeline_.Dispatch(encoder, buffers, &pc, 1, "indirect dispatch validation"))
    return {nullptr, 0};
  return {scratch, 0};
}

}  // namespace wgpu::detail
