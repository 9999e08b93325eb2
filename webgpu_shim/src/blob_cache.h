// The application's blob cache (DawnCacheDeviceDescriptor's load/store callbacks), as Dawn's
// BlobCache wraps them: the device's Vulkan pipeline cache and the SPIR-V of its WGSL modules
// persist through it. Keys start with the isolation key. Thread-safe as far as the callbacks are
// (the descriptor requires them to be): loads and stores come from the device's worker threads.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <optional>
#include <string>
#include <string_view>

namespace wgpu::detail {

class BlobCache {
 public:
  BlobCache() = default;  // no hooks: every load misses, stores are dropped
  explicit BlobCache(const DawnCacheDeviceDescriptor& descriptor);

  bool CanLoad() const { return static_cast<bool>(load_); }
  bool CanStore() const { return static_cast<bool>(store_); }
  // The isolation key followed by `key`.
  std::string Key(std::string_view key) const { return isolationKey_ + std::string(key); }
  // The bytes stored under `fullKey` (from Key()), or nothing on a miss. Asks as Dawn asks: first
  // the size (0 is a miss), then the bytes.
  std::optional<std::string> Load(std::string_view fullKey) const;
  void Store(std::string_view fullKey, std::string_view bytes) const;

 private:
  std::string isolationKey_;
  DawnCacheDeviceDescriptor::LoadCallback load_;
  DawnCacheDeviceDescriptor::StoreCallback store_;
};

}  // namespace wgpu::detail
