#include "events.h"

#include <chrono>
#include <thread>

#include "device.h"

namespace wgpu::detail {

Future EventManager::Track(CallbackMode mode, const std::shared_ptr<DeviceImpl>& device,
                           uint64_t serial, std::function<void()> complete) {
  Event event{mode, device, serial, std::move(complete)};
  if (mode == CallbackMode::AllowSpontaneous && IsReady(event)) {
    uint64_t id;
    {
      std::lock_guard lock(mutex_);
      id = nextId_++;
    }
    event.complete();
    return Future{id};
  }
  std::lock_guard lock(mutex_);
  uint64_t id = nextId_++;
  events_.emplace(id, std::move(event));
  return Future{id};
}

Future EventManager::TrackPending(CallbackMode mode, const std::shared_ptr<DeviceImpl>& device,
                                  std::function<void()> complete) {
  std::lock_guard lock(mutex_);
  uint64_t id = nextId_++;
  events_.emplace(id, Event{mode, device, 0, std::move(complete), true});
  return Future{id};
}

void EventManager::MakeReady(uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    ++readyCount_;
    if (auto it = events_.find(id); it != events_.end()) {
      it->second.serial = 0;
      it->second.pending = false;
    }
  }
  madeReady_.notify_all();
}

bool EventManager::IsReady(const Event& event) {
  if (event.pending) return false;
  if (event.serial == 0) return true;
  auto device = event.device.lock();
  return !device || device->IsLost() || device->CompletedSerial() >= event.serial;
}

std::vector<std::function<void()>> EventManager::TakeReady(
    const std::function<bool(uint64_t, const Event&)>& select) {
  std::vector<std::shared_ptr<DeviceImpl>> devices;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, event] : events_)
      if (auto d = event.device.lock()) devices.push_back(std::move(d));
  }
  for (auto& d : devices) d->Tick();
  std::vector<std::function<void()>> ready;
  std::lock_guard lock(mutex_);
  for (auto it = events_.begin(); it != events_.end();) {
    if (select(it->first, it->second) && IsReady(it->second)) {
      ready.push_back(std::move(it->second.complete));
      it = events_.erase(it);
    } else {
      ++it;
    }
  }
  return ready;
}

void EventManager::ProcessEvents() {
  // Callbacks run outside the lock: they may start new async work.
  auto ready = TakeReady([](uint64_t, const Event& e) {
    return e.mode != CallbackMode::WaitAnyOnly;
  });
  for (auto& complete : ready) complete();
}

WaitStatus EventManager::WaitAny(std::span<FutureWaitInfo> futures, uint64_t timeoutNS) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (;;) {
    bool anyCompleted = false;
    std::shared_ptr<DeviceImpl> waitDevice;
    uint64_t waitSerial = 0;
    uint64_t readyCount;
    {
      std::lock_guard lock(mutex_);
      readyCount = readyCount_;
      for (auto& info : futures) {
        auto it = events_.find(info.future.id);
        if (it == events_.end()) {
          // Already completed (or never existed): Dawn reports it as completed.
          info.completed = true;
          anyCompleted = true;
        } else if (!waitDevice && it->second.serial != 0) {
          waitDevice = it->second.device.lock();
          waitSerial = it->second.serial;
        }
      }
    }
    if (anyCompleted) return WaitStatus::Success;

    auto ready = TakeReady([&](uint64_t id, const Event&) {
      for (auto& info : futures)
        if (info.future.id == id) return true;
      return false;
    });
    if (!ready.empty()) {
      for (auto& complete : ready) complete();
      continue;  // marks the completed futures on the next pass
    }
    const auto elapsed = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    if (elapsed >= timeoutNS) return WaitStatus::TimedOut;
    const uint64_t remaining = timeoutNS - elapsed;
    if (waitDevice) {
      waitDevice->WaitForSerial(waitSerial, remaining);
    } else {
      std::unique_lock lock(mutex_);
      madeReady_.wait_for(lock, std::chrono::nanoseconds(std::min<uint64_t>(remaining, 100000)),
                          [&] { return readyCount_ != readyCount; });
    }
  }
}

}  // namespace wgpu::detail
