#include "cache_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <random>

namespace tg::detail {

std::filesystem::path resolveCacheDir(const std::filesystem::path& configured) {
  if (configured == "none") return {};
  if (!configured.empty()) return configured;
  if (const char* dir = std::getenv("TENSORGRAD_CACHE_DIR")) {
    return std::string_view(dir) == "none" ? std::filesystem::path() : std::filesystem::path(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "tensorgrad";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "tensorgrad";
  return {};
}

std::optional<std::string> readCacheFile(const std::filesystem::path& path) {
  // Regular files only, never blocking: a directory, a FIFO, a socket or a device at an entry's
  // path (or a symlink to one) is a miss, not a wait or an exception. lstat first, then open
  // without following links and without blocking, then fstat what was opened (it may have been
  // swapped in between).
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    std::string bytes;
    bytes.reserve(static_cast<size_t>(st.st_size));
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        bytes.append(buffer, static_cast<size_t>(n));
      } else if (n == 0) {
        out = std::move(bytes);
        break;
      } else if (errno != EINTR) {
        break;
      }
    }
  }
  ::close(fd);
  return out;
}

void writeCacheFile(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const std::string tmp = path.string() + ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  // rename replaces a file, a FIFO or a symlink at `path`; a directory in the way makes it fail,
  // and the entry is then skipped (it only costs the next compile a translation).
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace tg::detail
