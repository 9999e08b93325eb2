// What a queue submission costs on the GPU's own timeline, in raw Vulkan: the same "steps" (a
// chain of small dependent dispatches each) recorded into one command buffer, or submitted one
// submission a step in several forms (no signal, a timeline semaphore signal as the shim's queue
// does, an extra command buffer of copies in front as the shim's pending writes are, a readback
// copy with a barrier to the host at the end, the copies or the readback done by a dispatch
// instead, the step as a secondary command buffer, several steps batched into one vkQueueSubmit).
// Every step is timestamped at its start and end (ALL_COMMANDS, so a timestamp waits for the
// work before it); the table gives the GPU time per step from the first start to the last end,
// the mean busy time of a step and the mean gap between one step's end and the next one's start.
// Every form submits all its steps before waiting, so the host stays ahead of the GPU.
//
//   submit_gaps [--steps K] [--dispatches D] [--device NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "increment.spv.h"
#include "raw_vulkan.h"

namespace {

void Check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(r));
}

struct Options {
  uint32_t steps = 256;
  uint32_t dispatches = 16;
  std::string device;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--steps" && hasValue) {
      o.steps = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--dispatches" && hasValue) {
      o.dispatches = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--device" && hasValue) {
      o.device = argv[++i];
    } else {
      throw std::runtime_error("usage: submit_gaps [--steps K] [--dispatches D] [--device NAME]");
    }
  }
  if (o.steps < 2 || o.steps > 4096 || o.dispatches < 1 || o.dispatches > 1024)
    throw std::runtime_error("--steps must be 2..4096 and --dispatches 1..1024");
  return o;
}

// One way of putting a step on the queue.
struct Form {
  const char* name;
  bool oneBuffer = false;       // every step in one command buffer, one submit
  bool signal = true;           // each submission signals the timeline (the shim's queue does)
  bool copiesInFront = false;   // a command buffer of 3 small copies before the step's, as the
                                // shim's queue puts its pending writes' buffer
  bool copiesInStep = false;    // the same copies at the start of the step's own command buffer
  bool secondary = false;       // the step recorded as a secondary command buffer that a
                                // primary a step executes (after the copies, if any)
  bool readback = false;        // the step ends in a 4-byte copy to host memory ...
  bool hostBarrier = false;     // ... and a barrier making it visible to the host
  bool byDispatch = false;      // the copies, and the readback, as a one-workgroup dispatch
                                // writing 256 bytes (scratch memory; host memory) instead
  enum { Each, ManyInfos, OneInfo } batch = Each;  // a vkQueueSubmit a step; or one for all,
                                                   // with a VkSubmitInfo a step or one in all
};

const Form kForms[] = {
    {.name = "one command buffer", .oneBuffer = true},
    {.name = "a submit a step, no signal", .signal = false},
    {.name = "a submit a step, timeline signal"},
    {.name = "+ copies: a command buffer in front", .copiesInFront = true},
    {.name = "+ copies: in the step's command buffer", .copiesInStep = true},
    {.name = "step as a secondary", .secondary = true},
    {.name = "+ copies: in its primary", .copiesInStep = true, .secondary = true},
    {.name = "+ readback copy, no host barrier", .readback = true},
    {.name = "+ readback copy and host barrier", .readback = true, .hostBarrier = true},
    {.name = "+ copies: a dispatch in front", .copiesInFront = true, .byDispatch = true},
    {.name = "+ readback by a dispatch, host barrier", .readback = true, .hostBarrier = true,
     .byDispatch = true},
    {.name = "one submit, a VkSubmitInfo a step", .batch = Form::ManyInfos},
    {.name = "one submit, one VkSubmitInfo", .batch = Form::OneInfo},
};

struct Result {
  double perStepUs, busyUs, gapUs, hostSubmitUs;
};

class Bench {
 public:
  explicit Bench(const Options& o) : o_(o), vk_(o.device) {
    if (!vk_.hasTimelineAndQueryReset)
      throw std::runtime_error(vk_.deviceName + " lacks timeline semaphores or host query resets");
    vk_.CreatePipeline(std::span(kIncrementSpv, sizeof(kIncrementSpv) / 4));
    work_ = vk_.CreateBuffer(256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    scratch_ = vk_.CreateBuffer(4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    readback_ = vk_.CreateBuffer(256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    set_ = vk_.CreateSet(work_, 256);
    scratchSet_ = vk_.CreateSet(scratch_, 256);
    readbackSet_ = vk_.CreateSet(readback_, 256);
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2 * o.steps;
    Check(vkCreateQueryPool(vk_.device, &qi, nullptr, &queries_), "vkCreateQueryPool");
    VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &ti;
    Check(vkCreateSemaphore(vk_.device, &si, nullptr, &timeline_), "vkCreateSemaphore");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = vk_.Pool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = o.steps + 1;
    cmds_.resize(o.steps + 1);
    Check(vkAllocateCommandBuffers(vk_.device, &ai, cmds_.data()), "vkAllocateCommandBuffers");
    ai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    ai.commandBufferCount = o.steps;
    secondaries_.resize(o.steps);
    Check(vkAllocateCommandBuffers(vk_.device, &ai, secondaries_.data()), "vkAllocateCommandBuffers");
  }

  ~Bench() {
    vkDeviceWaitIdle(vk_.device);
    vkDestroySemaphore(vk_.device, timeline_, nullptr);
    vkDestroyQueryPool(vk_.device, queries_, nullptr);
    vkFreeCommandBuffers(vk_.device, vk_.Pool(), static_cast<uint32_t>(cmds_.size()), cmds_.data());
    vkFreeCommandBuffers(vk_.device, vk_.Pool(), static_cast<uint32_t>(secondaries_.size()), secondaries_.data());
    vk_.DestroyBuffer(work_);
    vk_.DestroyBuffer(scratch_);
    vk_.DestroyBuffer(readback_);
  }

  const std::string& DeviceName() const { return vk_.deviceName; }

  Result Run(const Form& form) {
    vkResetQueryPool(vk_.device, queries_, 0, 2 * o_.steps);
    for (uint32_t s = 0; s < o_.steps; ++s) {
      if (form.oneBuffer && s > 0) {
        RecordStep(cmds_[0], s, form);
        continue;
      }
      VkCommandBuffer cmd = cmds_[form.oneBuffer ? 0 : s];
      Begin(cmd, 0);
      if (form.secondary) {
        VkCommandBufferInheritanceInfo inherit{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.pInheritanceInfo = &inherit;
        vkResetCommandBuffer(secondaries_[s], 0);
        vkBeginCommandBuffer(secondaries_[s], &bi);
        RecordStep(secondaries_[s], s, form);
        vkEndCommandBuffer(secondaries_[s]);
        if (form.copiesInStep) RecordCopies(cmd, form);
        vkCmdExecuteCommands(cmd, 1, &secondaries_[s]);
      } else {
        RecordStep(cmd, s, form);
      }
      if (!form.oneBuffer) vkEndCommandBuffer(cmd);
    }
    if (form.oneBuffer) vkEndCommandBuffer(cmds_[0]);
    VkCommandBuffer copies = cmds_[o_.steps];
    if (form.copiesInFront) {
      Begin(copies, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);  // in every step's submission
      RecordCopies(copies, form);
      vkEndCommandBuffer(copies);
    }

    uint64_t value = 0;
    Check(vkGetSemaphoreCounterValue(vk_.device, timeline_, &value), "counter");
    const auto start = std::chrono::steady_clock::now();
    if (form.oneBuffer) {
      Submit({cmds_[0]}, ++value);
    } else if (form.batch != Form::Each) {
      SubmitBatched(form, value);
      value += form.batch == Form::ManyInfos ? o_.steps : 1;
    } else {
      for (uint32_t s = 0; s < o_.steps; ++s) {
        std::vector<VkCommandBuffer> cmds{cmds_[s]};
        if (form.copiesInFront) cmds.insert(cmds.begin(), copies);
        const bool last = s + 1 == o_.steps;  // the wait needs the last one signalled
        Submit(cmds, form.signal || last ? ++value : 0);
      }
    }
    const double hostUs =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &timeline_;
    wi.pValues = &value;
    Check(vkWaitSemaphores(vk_.device, &wi, UINT64_MAX), "vkWaitSemaphores");

    std::vector<uint64_t> ts(2 * o_.steps);
    Check(vkGetQueryPoolResults(vk_.device, queries_, 0, 2 * o_.steps, ts.size() * 8, ts.data(), 8,
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    const double ns = vk_.timestampPeriodNs;
    double busy = 0, gap = 0;
    for (uint32_t s = 0; s < o_.steps; ++s) {
      busy += static_cast<double>(ts[2 * s + 1] - ts[2 * s]);
      if (s > 0) gap += static_cast<double>(ts[2 * s]) - static_cast<double>(ts[2 * s - 1]);
    }
    return {static_cast<double>(ts.back() - ts.front()) * ns / 1000 / o_.steps,
            busy * ns / 1000 / o_.steps, gap * ns / 1000 / (o_.steps - 1), hostUs / o_.steps};
  }

 private:
  static void Barrier(VkCommandBuffer cmd, VkPipelineStageFlags from, VkAccessFlags fromAccess,
                      VkPipelineStageFlags to, VkAccessFlags toAccess) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = fromAccess;
    b.dstAccessMask = toAccess;
    vkCmdPipelineBarrier(cmd, from, to, 0, 1, &b, 0, nullptr, 0, nullptr);
  }

  static void Begin(VkCommandBuffer cmd, VkCommandBufferUsageFlags flags) {
    vkResetCommandBuffer(cmd, 0);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = flags;
    vkBeginCommandBuffer(cmd, &bi);
  }

  void RecordCopies(VkCommandBuffer cmd, const Form& form) {
    if (form.byDispatch) {
      DispatchOn(cmd, scratchSet_);
      return;
    }
    VkBufferCopy region{0, 2048, 1024};
    for (int i = 0; i < 3; ++i) vkCmdCopyBuffer(cmd, scratch_.buffer, scratch_.buffer, 1, &region);
  }

  void DispatchOn(VkCommandBuffer cmd, VkDescriptorSet set) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk_.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk_.layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cmd, 1, 1, 1);
  }

  void RecordStep(VkCommandBuffer cmd, uint32_t s, const Form& form) {
    constexpr VkPipelineStageFlagBits kAll = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    constexpr VkAccessFlags kRw = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    vkCmdWriteTimestamp(cmd, kAll, queries_, 2 * s);
    if (form.copiesInStep && !form.secondary) RecordCopies(cmd, form);
    Barrier(cmd, kAll, kRw, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kRw);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk_.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk_.layout, 0, 1, &set_, 0, nullptr);
    for (uint32_t d = 0; d < o_.dispatches; ++d) {
      if (d > 0)
        Barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      vkCmdDispatch(cmd, 1, 1, 1);
    }
    if (form.readback && form.byDispatch) {
      Barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      DispatchOn(cmd, readbackSet_);
      if (form.hostBarrier)
        Barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    } else if (form.readback) {
      Barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      VkBufferCopy region{0, 0, 4};
      vkCmdCopyBuffer(cmd, work_.buffer, readback_.buffer, 1, &region);
      if (form.hostBarrier)
        Barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    }
    vkCmdWriteTimestamp(cmd, kAll, queries_, 2 * s + 1);
  }

  // One vkQueueSubmit of `cmds`, signalling the timeline at `value` (0: no signal).
  void Submit(std::vector<VkCommandBuffer> cmds, uint64_t value) {
    VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ti.signalSemaphoreValueCount = 1;
    ti.pSignalSemaphoreValues = &value;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = static_cast<uint32_t>(cmds.size());
    si.pCommandBuffers = cmds.data();
    if (value) {
      si.pNext = &ti;
      si.signalSemaphoreCount = 1;
      si.pSignalSemaphores = &timeline_;
    }
    Check(vkQueueSubmit(vk_.Queue(), 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
  }

  void SubmitBatched(const Form& form, uint64_t base) {
    const uint32_t k = o_.steps;
    if (form.batch == Form::OneInfo) {
      Submit(std::vector<VkCommandBuffer>(cmds_.begin(), cmds_.begin() + k), base + 1);
      return;
    }
    std::vector<uint64_t> values(k);
    std::vector<VkTimelineSemaphoreSubmitInfo> tis(k, {VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO});
    std::vector<VkSubmitInfo> sis(k, {VK_STRUCTURE_TYPE_SUBMIT_INFO});
    for (uint32_t s = 0; s < k; ++s) {
      values[s] = base + 1 + s;
      tis[s].signalSemaphoreValueCount = 1;
      tis[s].pSignalSemaphoreValues = &values[s];
      sis[s].pNext = &tis[s];
      sis[s].commandBufferCount = 1;
      sis[s].pCommandBuffers = &cmds_[s];
      sis[s].signalSemaphoreCount = 1;
      sis[s].pSignalSemaphores = &timeline_;
    }
    Check(vkQueueSubmit(vk_.Queue(), k, sis.data(), VK_NULL_HANDLE), "vkQueueSubmit");
  }

  Options o_;
  RawVulkan vk_;
  RawVulkan::Buffer work_, scratch_, readback_;
  VkDescriptorSet set_ = VK_NULL_HANDLE, scratchSet_ = VK_NULL_HANDLE, readbackSet_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> cmds_, secondaries_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = Parse(argc, argv);
    Bench bench(o);
    std::printf("%s: %u steps of %u dependent dispatches each (GPU timestamps, µs)\n\n",
                bench.DeviceName().c_str(), o.steps, o.dispatches);
    std::printf("| form | per step | step busy | gap between steps | host submit a step |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const Form& f : kForms) {
      bench.Run(f);  // warm
      Result best{1e30, 0, 0, 0};
      for (int r = 0; r < 5; ++r) {
        const Result got = bench.Run(f);
        if (got.perStepUs < best.perStepUs) best = got;
      }
      std::printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", f.name, best.perStepUs, best.busyUs, best.gapUs,
                  best.hostSubmitUs);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "submit_gaps: %s\n", e.what());
    return 1;
  }
}
