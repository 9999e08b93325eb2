// Which Vulkan driver a runtime opens its device on: the system's, Chromium's own SwiftShader (the
// device headless Chromium's WebGPU runs on), or a driver manifest the user names.
#include "tensorgrad/vulkan_driver.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace tg {

namespace {

bool containsIgnoringCase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return std::tolower(a) == std::tolower(b); }) !=
         haystack.end();
}

constexpr const char* kSwiftShaderManifest = "vk_swiftshader_icd.json";

}  // namespace

std::vector<std::filesystem::path> swiftShaderSearchPath() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("TG_SWIFTSHADER_ICD"); env && *env) dirs.emplace_back(env);
  for (const char* dir : {
           "/usr/lib/chromium",                       // Debian, Ubuntu's deb
           "/usr/lib64/chromium-browser",             // Fedora, openSUSE
           "/usr/lib/chromium-browser",               // older Ubuntu, Alpine
           "/snap/chromium/current/usr/lib/chromium-browser",
           "/opt/google/chrome",                      // Google Chrome
           "/opt/google/chrome-beta", "/opt/google/chrome-unstable",
           "/opt/microsoft/msedge",                   // Microsoft Edge
       })
    dirs.emplace_back(dir);
  return dirs;
}

std::optional<std::filesystem::path> findSwiftShaderDriver() {
  std::error_code ec;
  for (const auto& entry : swiftShaderSearchPath()) {
    const auto manifest = std::filesystem::is_directory(entry, ec) ? entry / kSwiftShaderManifest : entry;
    if (std::filesystem::is_regular_file(manifest, ec)) return manifest;
  }
  return std::nullopt;
}

std::string resolveVulkanDriver(std::string_view driver, std::string_view device) {
  std::string d(driver);
  if (d.empty() && containsIgnoringCase(device, "swiftshader")) d = "swiftshader";
  if (d.empty()) return {};
  if (d == "swiftshader") {
    if (auto found = findSwiftShaderDriver()) return found->string();
    std::string tried;
    for (const auto& p : swiftShaderSearchPath()) tried += "\n  " + p.string();
    throw std::runtime_error(
        "tensorgrad: no SwiftShader Vulkan driver (" + std::string(kSwiftShaderManifest) +
        ", which Chromium and Google Chrome ship) in:" + tried +
        "\nInstall Debian's chromium (apt install chromium), or set TG_SWIFTSHADER_ICD to a "
        "browser's copy (the manifest, or the folder holding it)");
  }
  std::error_code ec;
  std::filesystem::path p(d);
  if (std::filesystem::is_directory(p, ec)) p /= kSwiftShaderManifest;
  if (!std::filesystem::is_regular_file(p, ec))
    throw std::runtime_error("tensorgrad: the Vulkan driver manifest '" + p.string() +
                             "' does not exist (RuntimeOptions::vulkanDriver: \"swiftshader\", an ICD "
                             "JSON file, or a folder holding " + kSwiftShaderManifest + ")");
  return p.string();
}

}  // namespace tg
