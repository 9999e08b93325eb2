#include "blob_cache.h"

#include <algorithm>
#include <span>

namespace wgpu::detail {

BlobCache::BlobCache(const DawnCacheDeviceDescriptor& descriptor)
    : isolationKey_(std::string_view(descriptor.isolationKey)),
      load_(descriptor.loadCallback_),
      store_(descriptor.storeCallback_) {}

std::optional<std::string> BlobCache::Load(std::string_view fullKey) const {
  if (!load_) return std::nullopt;
  const auto key = std::as_bytes(std::span(fullKey.data(), fullKey.size()));
  const size_t size = load_(key, {});
  if (size == 0) return std::nullopt;
  std::string bytes(size, '\0');
  const size_t got = load_(key, std::as_writable_bytes(std::span(bytes.data(), bytes.size())));
  bytes.resize(std::min(got, size));  // the entry may have changed in between; callers check
  if (bytes.empty()) return std::nullopt;
  return bytes;
}

void BlobCache::Store(std::string_view fullKey, std::string_view bytes) const {
  if (!store_) return;
  store_(std::as_bytes(std::span(fullKey.data(), fullKey.size())),
         std::as_bytes(std::span(bytes.data(), bytes.size())));
}

}  // namespace wgpu::detail
