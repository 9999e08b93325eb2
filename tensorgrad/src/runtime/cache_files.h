// Files of the persistent compile cache (the device's blob cache: the SPIR-V of each kernel and
// the driver's pipeline cache, one file per key): where they live, whole-file reads, and writes
// that other processes never see half done (a unique temporary, then rename). Failures only cost speed, so they are silent:
// only regular files are read, without blocking, and an entry that cannot be replaced is skipped.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tg::detail {

// The directory RuntimeOptions::cacheDir resolves to (empty: disabled).
std::filesystem::path resolveCacheDir(const std::filesystem::path& configured);

std::optional<std::string> readCacheFile(const std::filesystem::path& path);
void writeCacheFile(const std::filesystem::path& path, std::string_view bytes);

}  // namespace tg::detail
