#include "process_exit.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "device.h"

namespace wgpu::detail {

namespace {

std::atomic<bool> exiting{false};

// Never destroyed: devices held by namespace-scope handles leave after every static destructor
// of this library may have run.
std::mutex& LiveMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::unordered_set<DeviceImpl*>& LiveDevices() {
  static auto* devices = new std::unordered_set<DeviceImpl*>;
  return *devices;
}

void OnProcessExit() {
  std::lock_guard lock(LiveMutex());
  for (DeviceImpl* device : LiveDevices()) device->StorePipelineCacheBeforeExit();
  exiting.store(true);
}

}  // namespace

void WatchProcessExit() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(OnProcessExit); });
}

bool ProcessExiting() {
  return exiting.load(std::memory_order_relaxed);
}

void TrackLiveDevice(DeviceImpl* device) {
  std::lock_guard lock(LiveMutex());
  LiveDevices().insert(device);
}

void UntrackLiveDevice(DeviceImpl* device) {
  std::lock_guard lock(LiveMutex());
  LiveDevices().erase(device);
}

}  // namespace wgpu::detail
