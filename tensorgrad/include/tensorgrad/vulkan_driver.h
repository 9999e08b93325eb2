// Choosing the Vulkan driver a runtime opens its device on (RuntimeOptions::vulkanDriver).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// Where Chromium's SwiftShader driver manifest (vk_swiftshader_icd.json) is looked for, in
// order: $TG_SWIFTSHADER_ICD (the manifest, or its folder), then where Debian's and other
// distributions' chromium, Google Chrome and Microsoft Edge install it.
std::vector<std::filesystem::path> swiftShaderSearchPath();
std::optional<std::filesystem::path> findSwiftShaderDriver();

// The driver manifest for RuntimeOptions::vulkanDriver and ::device: empty (the system's
// drivers), or a manifest path. "swiftshader" (or a device name containing "swiftshader" with no
// driver given) finds Chromium's SwiftShader; a folder means its vk_swiftshader_icd.json. Throws
// std::runtime_error naming what was looked for when it is missing.
std::string resolveVulkanDriver(std::string_view driver, std::string_view device);

}  // namespace tg
