#include "instance.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <cerrno>

#include "process_exit.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

bool ContainsIgnoringCase(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  return it != haystack.end();
}

bool HasLayer(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

// One VkInstance per configuration for the whole process, never destroyed: NVIDIA's 580 driver
// refuses vkCreateInstance (VK_ERROR_INCOMPATIBLE_DRIVER) after ~29 create/destroy cycles in one
// process, which a test suite or a long-lived app creating wgpu::Instances would hit.
struct VulkanInstance {
  VkInstance handle = VK_NULL_HANDLE;
  std::string error;
};

// Sets an environment variable for the lifetime of this object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1); else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// `driverFile` empty: the loader's own driver search. Otherwise only that manifest's driver. The
// loader takes the list of drivers from the environment when the instance is created, and each
// instance keeps its own list, so one process can hold instances of several drivers. (Debian 12's
// loader, 1.3.239, rejects VK_LUNARG_direct_driver_loading, the way without the environment.) The
// variables change only here, under this lock, once per driver for the process's lifetime; a
// thread reading the environment meanwhile could see them.
const VulkanInstance& SharedVulkanInstance(bool validation, const std::string& driverFile) {
  static std::mutex mutex;
  static std::map<std::pair<bool, std::string>, VulkanInstance> cache;
  std::lock_guard lock(mutex);
  const auto key = std::make_pair(validation, driverFile);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  VulkanInstance& result = cache[key];
  std::optional<ScopedEnv> driverFiles, addDriverFiles, icdFilenames;
  if (!driverFile.empty()) {
    std::FILE* f = std::fopen(driverFile.c_str(), "rb");
    if (!f) {
      result.error = "the Vulkan driver manifest " + driverFile + " cannot be read (" +
                     std::strerror(errno) + ")";
      return result;
    }
    std::fclose(f);
    driverFiles.emplace("VK_DRIVER_FILES", driverFile.c_str());
    addDriverFiles.emplace("VK_ADD_DRIVER_FILES", nullptr);
    icdFilenames.emplace("VK_ICD_FILENAMES", nullptr);
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "webgpu_shim";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  if (validation) {
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    info.pNext = &features;
  }
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateInstance(&info, nullptr, &result.handle); r != VK_SUCCESS) {
    result.handle = VK_NULL_HANDLE;
    result.error = VkFailure("vkCreateInstance", r) +
                   (driverFile.empty() ? " (is a Vulkan driver installed? On a CPU machine install "
                                         "mesa-vulkan-drivers for lavapipe)"
                                       : " with the Vulkan driver " + driverFile);
  }
  return result;
}

}  // namespace

InstanceImpl::InstanceImpl(const InstanceDescriptor& descriptor) {
  validation_ = descriptor.enableVulkanValidation || EnvFlag("WEBGPU_SHIM_VALIDATION");
  const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
  if (validation_ && !HasLayer(kValidationLayer)) {
    std::fprintf(stderr, "webgpu_shim: %s requested but not installed (vulkan-validationlayers)\n",
                 kValidationLayer);
    validation_ = false;
  }
  driverFile_ = std::string(std::string_view(descriptor.vulkanDriverFile));
  const VulkanInstance& vk = SharedVulkanInstance(validation_, driverFile_);
  instance_ = vk.handle;
  if (!instance_) {
    creationError_ = vk.error;
    return;
  }
  if (validation_) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    m.pfnUserCallback = &InstanceImpl::OnValidationMessage;
    m.pUserData = this;
    if (create) create(instance_, &m, nullptr, &messenger_);
  }
}

InstanceImpl::~InstanceImpl() {
  if (messenger_ && !ProcessExiting()) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  // The VkInstance itself is shared and lives until process exit (see SharedVulkanInstance).
}

VKAPI_ATTR VkBool32 VKAPI_CALL InstanceImpl::OnValidationMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<InstanceImpl*>(user);
  self->validationMessages_.fetch_add(1);
  std::fprintf(stderr, "webgpu_shim: Vulkan validation: %s\n", data->pMessage);
  return VK_FALSE;
}

std::vector<std::shared_ptr<AdapterImpl>> InstanceImpl::Adapters(
    const RequestAdapterOptions& options, std::string* whyNone) {
  if (!instance_) {
    *whyNone = creationError_;
    return {};
  }
  if (!enumerated_) {
    enumerated_ = true;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> physical(count);
    vkEnumeratePhysicalDevices(instance_, &count, physical.data());
    std::vector<std::shared_ptr<AdapterImpl>> ranked;
    for (auto p : physical) ranked.push_back(std::make_shared<AdapterImpl>(shared_from_this(), p));
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a->Rank() < b->Rank(); });
    for (const auto& a : ranked) physical_.push_back(a->Physical());
  }
  // Every request gets fresh adapter objects (as in WebGPU); each keeps the instance alive, so
  // the instance itself must not hold them.
  std::vector<std::shared_ptr<AdapterImpl>> all;
  for (auto p : physical_) all.push_back(std::make_shared<AdapterImpl>(shared_from_this(), p));

  std::string name{std::string_view(options.adapterName)};
  if (name.empty())
    if (const char* env = std::getenv("WEBGPU_ADAPTER")) name = env;

  std::vector<std::shared_ptr<AdapterImpl>> result;
  std::string seen;
  for (auto& a : all) {
    seen += "\n  - " + a->DeviceName() +
            (a->Usable() ? std::string() : " (unusable: " + a->UnusableReason() + ")");
    if (!a->Usable()) continue;
    if (!name.empty() && !ContainsIgnoringCase(a->DeviceName(), name)) continue;
    if (options.forceFallbackAdapter && a->Info().adapterType != AdapterType::CPU) continue;
    result.push_back(a);
  }
  // Low power prefers integrated over discrete; the default and high performance keep the order.
  if (options.powerPreference == PowerPreference::LowPower) {
    std::stable_partition(result.begin(), result.end(), [](const auto& a) {
      return a->Info().adapterType == AdapterType::IntegratedGPU;
    });
  }
  if (result.empty()) {
    *whyNone = "No Vulkan adapter matches";
    if (!driverFile_.empty()) *whyNone += " among the devices of the driver " + driverFile_;
    if (!name.empty()) *whyNone += " the name \"" + name + "\" (WEBGPU_ADAPTER / adapterName)";
    if (options.forceFallbackAdapter) *whyNone += " the fallback (CPU) requirement";
    *whyNone += ". Vulkan devices found:" + (seen.empty() ? std::string(" none") : seen) +
                "\nOn a machine without a GPU, install mesa-vulkan-drivers (lavapipe).";
  }
  return result;
}

}  // namespace wgpu::detail
