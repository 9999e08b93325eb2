#include "query_set.h"

#include "device.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

std::string Validate(const DeviceImpl& device, const QuerySetDescriptor& d) {
  if (d.type == QueryType::Occlusion)
    return "type is Occlusion, but occlusion queries need render passes, which are not supported.";
  if (d.type != QueryType::Timestamp)
    return "type (" + std::to_string(static_cast<uint32_t>(d.type)) + ") is not a QueryType.";
  if (!device.Features().Has(FeatureName::TimestampQuery))
    return "type is Timestamp, but the TimestampQuery (timestamp-query) feature is not enabled "
           "on " +
           device.Name() + ".";
  if (d.count > kMaxQuerySetSize)
    return "count (" + std::to_string(d.count) + ") exceeds the maximum query set size (" +
           std::to_string(kMaxQuerySetSize) + ").";
  return {};
}

// Destroys the pool once the GPU is done with what was submitted so far. Deferred work must not
// own the device (see DeferUntilIdle).
void DestroyPool(DeviceImpl* device, VkQueryPool pool) {
  device->DeferUntilIdle([device, pool] { vkDestroyQueryPool(device->Vk(), pool, nullptr); });
}

}  // namespace

QuerySetImpl::QuerySetImpl(const std::shared_ptr<DeviceImpl>& device, const QuerySetDescriptor& d)
    : ObjectBase(device, "QuerySet", d.label),
      type_(d.type),
      count_(d.count),
      available_(d.count) {}

std::shared_ptr<QuerySetImpl> QuerySetImpl::Create(const std::shared_ptr<DeviceImpl>& device,
                                                   const QuerySetDescriptor& d) {
  auto set = std::make_shared<QuerySetImpl>(device, d);
  if (std::string error = Validate(*device, d); !error.empty()) {
    set->MarkInvalid();
    set->available_.clear();
    device->HandleError(ErrorType::Validation,
                        set->Name() + " " + error + "\n - While calling [Device].CreateQuerySet.");
    return set;
  }
  if (d.count == 0) return set;  // valid, and nothing can be written: no pool
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = d.count;
  if (VkResult r = vkCreateQueryPool(device->Vk(), &info, nullptr, &set->pool_); r != VK_SUCCESS) {
    set->pool_ = VK_NULL_HANDLE;
    set->MarkInvalid();
    device->HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                        set->Name() + " " + VkFailure("vkCreateQueryPool", r));
  }
  return set;
}

QuerySetImpl::~QuerySetImpl() {
  if (pool_) DestroyPool(device_.get(), pool_);
}

void QuerySetImpl::Destroy() {
  destroyed_ = true;
  if (pool_) DestroyPool(device_.get(), pool_);
  pool_ = VK_NULL_HANDLE;
}

std::string QuerySetImpl::CheckUsableInSubmit() const {
  if (!IsValid()) return Name() + " is invalid.";
  if (destroyed_) return Name() + " used in submit while destroyed.";
  return {};
}

}  // namespace wgpu::detail
