// Futures and callbacks in Dawn's style. Every async operation registers an event that becomes
// ready either at once or when the device's timeline reaches a serial; ProcessEvents and WaitAny
// run the callbacks of ready events (WaitAnyOnly events only through WaitAny).
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <cstdint>
#include <functional>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

namespace wgpu::detail {

class DeviceImpl;

class EventManager {
 public:
  // `serial` 0 means ready now; otherwise ready once `device` has completed that serial.
  // AllowSpontaneous events that are ready now complete before Track returns.
  Future Track(CallbackMode mode, const std::shared_ptr<DeviceImpl>& device, uint64_t serial,
               std::function<void()> complete);
  // An event that becomes ready only through MakeReady (work finishing on another thread),
  // whatever happens to the device meanwhile.
  Future TrackPending(CallbackMode mode, const std::shared_ptr<DeviceImpl>& device,
                      std::function<void()> complete);
  // Makes an event ready now (a map request aborted by Unmap, a lost device, finished work...).
  void MakeReady(uint64_t id);
  void ProcessEvents();
  WaitStatus WaitAny(std::span<FutureWaitInfo> futures, uint64_t timeoutNS);

 private:
  struct Event {
    CallbackMode mode;
    std::weak_ptr<DeviceImpl> device;
    uint64_t serial;
    std::function<void()> complete;
    bool pending = false;  // waits for MakeReady
  };
  static bool IsReady(const Event& event);
  // Removes and returns the callbacks of the ready events `select` accepts.
  std::vector<std::function<void()>> TakeReady(const std::function<bool(uint64_t, const Event&)>& select);

  std::mutex mutex_;
  std::condition_variable madeReady_;  // wakes WaitAny when MakeReady runs
  uint64_t readyCount_ = 0;            // MakeReady calls so far
  std::map<uint64_t, Event> events_;
  uint64_t nextId_ = 1;
};

}  // namespace wgpu::detail
