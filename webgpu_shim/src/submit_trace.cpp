#include "submit_trace.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include "device.h"
#include "process_exit.h"

namespace wgpu::detail {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::atomic<int> tracedDevices{0};

}  // namespace

std::unique_ptr<SubmitTrace> SubmitTrace::Open(DeviceImpl& device, VkPhysicalDevice physical,
                                               uint32_t queueFamily) {
  const char* path = std::getenv("WEBGPU_SHIM_SUBMIT_TRACE");
  if (!path || !*path) return nullptr;
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
  if (queueFamily >= families || props[queueFamily].timestampValidBits == 0) {
    std::fprintf(stderr, "WEBGPU_SHIM_SUBMIT_TRACE: this device's queue writes no timestamps\n");
    return nullptr;
  }
  const std::string file = std::string(path) + "." + std::to_string(getpid()) + "." +
                           std::to_string(++tracedDevices);
  FILE* out = std::fopen(file.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "WEBGPU_SHIM_SUBMIT_TRACE: cannot write %s\n", file.c_str());
    return nullptr;
  }
  std::unique_ptr<SubmitTrace> t(new SubmitTrace(device, out));
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(physical, &p);
  t->nsPerTick_ = p.limits.timestampPeriod;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2 * kSlots;
  if (vkCreateQueryPool(device.Vk(), &info, nullptr, &t->pool_) != VK_SUCCESS) {
    std::fprintf(stderr, "WEBGPU_SHIM_SUBMIT_TRACE: no query pool\n");
    std::fclose(out);
    t->out_ = nullptr;
    return nullptr;
  }
  // Each slot's two command buffers are recorded once: the first resets the slot's two queries
  // and writes the start, the last writes the end once everything before it is done.
  for (uint32_t i = 0; i < kSlots; ++i) {
    VkCommandBuffer first = device.AcquireCommandBuffer(true);
    vkCmdResetQueryPool(first, t->pool_, 2 * i, 2);
    vkCmdWriteTimestamp(first, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->pool_, 2 * i);
    vkEndCommandBuffer(first);
    VkCommandBuffer last = device.AcquireCommandBuffer(true);
    vkCmdWriteTimestamp(last, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->pool_, 2 * i + 1);
    vkEndCommandBuffer(last);
    t->firsts_.push_back(first);
    t->lasts_.push_back(last);
  }
  t->slotBusy_.assign(kSlots, false);
  std::fprintf(out, "serial,submitted_ns,seen_done_ns,gpu_start_ns,gpu_end_ns\n");
  return t;
}

SubmitTrace::~SubmitTrace() {
  if (out_) std::fclose(out_);
  if (ProcessExiting()) return;  // the driver may be gone (process_exit.h)
  for (VkCommandBuffer c : firsts_) device_.ReleaseCommandBuffer(c);
  for (VkCommandBuffer c : lasts_) device_.ReleaseCommandBuffer(c);
  if (pool_) vkDestroyQueryPool(device_.Vk(), pool_, nullptr);
}

std::optional<std::pair<VkCommandBuffer, VkCommandBuffer>> SubmitTrace::Wrap(uint64_t serial) {
  Pending p{.serial = serial, .submittedNs = NowNs()};
  const auto slot = static_cast<uint32_t>(serial % kSlots);
  if (!slotBusy_[slot]) {
    slotBusy_[slot] = true;
    p.slot = slot;
  }
  pending_.push_back(p);
  if (!p.slot) return std::nullopt;
  return std::pair{firsts_[slot], lasts_[slot]};
}

void SubmitTrace::Completed(uint64_t completed) {
  if (pending_.empty() || pending_.front().serial > completed) return;
  const int64_t now = NowNs();
  size_t done = 0;
  for (; done < pending_.size() && pending_[done].serial <= completed; ++done) {
    const Pending& p = pending_[done];
    if (!p.slot) {
      std::fprintf(out_, "%llu,%lld,%lld,,\n", static_cast<unsigned long long>(p.serial),
                   static_cast<long long>(p.submittedNs), static_cast<long long>(now));
      continue;
    }
    uint64_t ticks[2] = {0, 0};
    vkGetQueryPoolResults(device_.Vk(), pool_, 2 * *p.slot, 2, sizeof ticks, ticks,
                          sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    slotBusy_[*p.slot] = false;
    std::fprintf(out_, "%llu,%lld,%lld,%.0f,%.0f\n", static_cast<unsigned long long>(p.serial),
                 static_cast<long long>(p.submittedNs), static_cast<long long>(now),
                 static_cast<double>(ticks[0]) * nsPerTick_,
                 static_cast<double>(ticks[1]) * nsPerTick_);
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
  std::fflush(out_);  // a process may end without destroying its device
}

}  // namespace wgpu::detail
