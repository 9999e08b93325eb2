// WEBGPU_SHIM_SUBMIT_TRACE=PATH: every submission's timeline, as CSV in PATH.<pid>.<n> (n counts
// the traced devices of the process): a row for each submission once the host first sees it
// complete, with the host's submit time and that moment (steady clock, ns) and the GPU's start
// and end of it (timestamps written first and last in the submission, ns on the device's own
// clock). What it answers: how long the GPU ran a step, how long it sat idle between two, and how
// much of a wait was the host's (bench/submit_trace_stats.py sums a trace up). A device whose
// queue writes no timestamps is not traced.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace wgpu::detail {

class DeviceImpl;

class SubmitTrace {
 public:
  // The trace for `device` when the variable is set and its queue family writes timestamps.
  static std::unique_ptr<SubmitTrace> Open(DeviceImpl& device, VkPhysicalDevice physical,
                                           uint32_t queueFamily);
  SubmitTrace(const SubmitTrace&) = delete;
  SubmitTrace& operator=(const SubmitTrace&) = delete;
  ~SubmitTrace();

  // The command buffers to run first and last in submission `serial`; none while every slot
  // holds a submission not yet seen complete (its row then has no GPU times).
  std::optional<std::pair<VkCommandBuffer, VkCommandBuffer>> Wrap(uint64_t serial);
  // Writes the rows of the submissions up to `completed`.
  void Completed(uint64_t completed);

 private:
  SubmitTrace(DeviceImpl& device, FILE* out) : device_(device), out_(out) {}
  static constexpr uint32_t kSlots = 256;  // submissions in flight with timestamps
  struct Pending {
    uint64_t serial = 0;
    int64_t submittedNs = 0;
    std::optional<uint32_t> slot;
  };
  DeviceImpl& device_;
  FILE* out_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  double nsPerTick_ = 1;
  std::vector<VkCommandBuffer> firsts_, lasts_;  // per slot
  std::vector<bool> slotBusy_;
  std::vector<Pending> pending_;  // in submission order
};

}  // namespace wgpu::detail
