// Which native device gives a bundle's recorded bits: the one its browser ran on. A bundle names
// its recording adapter in free text (GPUAdapterInfo's description, else vendor and
// architecture), from which the device class follows.
#include <algorithm>
#include <cctype>

#include "tensorgrad/parity.h"
#include "tensorgrad/vulkan_driver.h"

namespace tg::parity {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool has(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

ReplayDevice replayDevice(const Bundle& b) {
  ReplayDevice d;
  d.recordedOn = b.adapter.value_or("");
  const std::string a = lower(d.recordedOn);
  if (a.empty()) {
    d.kind = ReplayDevice::Kind::Unknown;
    d.description = "the default device (the bundle does not name the device that recorded it)";
    return d;
  }
  if (has(a, "swiftshader")) {
    // Chromium's WebGPU on SwiftShader: its own Vulkan driver gives its bits.
    d.kind = ReplayDevice::Kind::SwiftShader;
    d.runtime.vulkanDriver = "swiftshader";
    d.description = "Chromium's SwiftShader";
    if (auto found = findSwiftShaderDriver()) {
      d.description += " (" + found->string() + ")";
    } else {
      d.missing = "Chromium's SwiftShader Vulkan driver is not installed: apt install chromium (or set "
                  "TG_SWIFTSHADER_ICD to a browser's vk_swiftshader_icd.json)";
    }
    return d;
  }
  if (has(a, "llvmpipe") || (has(a, "opengl") && has(a, "mesa")) || has(a, "lavapipe")) {
    // Dawn's GL backend on Mesa's llvmpipe: lavapipe shares its code generator and its bits.
    d.kind = ReplayDevice::Kind::Lavapipe;
    d.runtime.device = "llvmpipe";
    d.description = "Mesa's lavapipe (llvmpipe)";
    return d;
  }
  // A GPU, by the vendor word that Vulkan device names carry: the same GPU's Vulkan driver (a
  // different GPU or driver rounds differently).
  for (const char* vendor : {"nvidia", "amd", "radeon", "intel", "adreno", "mali"}) {
    if (has(a, vendor)) {
      d.kind = ReplayDevice::Kind::Gpu;
      d.runtime.device = vendor;
      d.description = "the " + std::string(vendor) + " GPU (the bits hold on the same GPU and driver)";
      return d;
    }
  }
  d.kind = ReplayDevice::Kind::Unknown;
  d.description = "the default device (no native device class is known for '" + d.recordedOn + "')";
  return d;
}

}  // namespace tg::parity
