// Query sets: timestamp queries backed by a VkQueryPool, and which queries hold a value.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include "object.h"

namespace wgpu::detail {

// WebGPU's limit on a query set's size.
inline constexpr uint32_t kMaxQuerySetSize = 4096;

class QuerySetImpl : public ObjectBase, public std::enable_shared_from_this<QuerySetImpl> {
 public:
  // Validates the descriptor; an error gives an invalid set and a validation error.
  static std::shared_ptr<QuerySetImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                              const QuerySetDescriptor& descriptor);
  QuerySetImpl(const std::shared_ptr<DeviceImpl>& device, const QuerySetDescriptor& descriptor);
  ~QuerySetImpl() override;

  void Destroy();
  bool IsDestroyed() const { return destroyed_; }
  QueryType Type() const { return type_; }
  uint32_t Count() const { return count_; }
  VkQueryPool Vk() const { return pool_; }
  // Valid and not destroyed; else the reason, for the submit's error.
  std::string CheckUsableInSubmit() const;

  // Whether a submitted command buffer wrote query `index`. Vulkan queries hold no value until
  // written (and waiting on one would hang), so resolves read only these and zero the rest.
  bool Available(uint32_t index) const { return available_[index]; }
  void MarkAvailable(uint32_t index) { available_[index] = true; }

 private:
  QueryType type_;
  uint32_t count_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  bool destroyed_ = false;
  std::vector<bool> available_;
};

}  // namespace wgpu::detail
