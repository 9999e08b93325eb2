// WebGPU skips an indirect dispatch whose workgroup counts exceed the limit; Vulkan leaves it
// undefined. Before each indirect dispatch a one-thread shader copies the counts to a scratch
// buffer, zeroing them when any is over the limit, and the dispatch reads the scratch instead.
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

#include "internal_pipeline.h"

namespace wgpu::detail {

class BufferImpl;
class DeviceImpl;
class CommandEncoderImpl;

class IndirectValidator {
 public:
  explicit IndirectValidator(DeviceImpl& device);

  // Records the validation; returns the buffer and offset the dispatch must read its counts from.
  // The caller rebinds its own pipeline and groups afterwards.
  std::pair<BufferImpl*, uint64_t> Record(CommandEncoderImpl& encoder, BufferImpl& indirect,
                                          uint64_t offset);

 private:
  DeviceImpl& device_;
  InternalPipeline pipeline_;
};

}  // namespace wgpu::detail
