// What the Vulkan driver made of WGSL kernels: each file is translated by wgsl_subset and built
// into a compute pipeline with VK_KHR_pipeline_executable_properties' capture flags, and the
// driver's statistics for each executable (registers, spills, instruction counts: whatever it
// reports) are printed. With --ir DIR, the driver's internal representations (where it offers
// any) are written there as <file>.<executable>.<n>.txt. For tuning the fast set's kernels on a
// device whose compiler output cannot be seen otherwise (dump a kernel's WGSL with
// `tg-inspect wgsl`).
//
//   pipeline_stats [--device NAME] [--ir DIR] kernel.wgsl...
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <wgsl_subset/wgsl_subset.h>

namespace {

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(r));
}

// Vulkan's two-call enumeration; `blank` is each element before the second call (its sType).
template <typename T, typename F>
std::vector<T> list(F&& get, const T& blank = {}) {
  uint32_t n = 0;
  get(&n, nullptr);
  std::vector<T> v(n, blank);
  get(&n, v.data());
  v.resize(n);
  return v;
}

struct Device {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  std::string name;
  PFN_vkGetPipelineExecutablePropertiesKHR properties = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR statistics = nullptr;
  PFN_vkGetPipelineExecutableInternalRepresentationsKHR representations = nullptr;

  explicit Device(const std::string& want) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ii.pApplicationInfo = &app;
    check(vkCreateInstance(&ii, nullptr, &instance), "vkCreateInstance");
    const auto devices = list<VkPhysicalDevice>(
        [&](uint32_t* n, VkPhysicalDevice* d) { vkEnumeratePhysicalDevices(instance, n, d); });
    for (VkPhysicalDevice d : devices) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      const bool match = want.empty() ? p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU
                                      : std::strstr(p.deviceName, want.c_str()) != nullptr;
      if (match || (!physical && want.empty())) {
        physical = d;
        name = p.deviceName;
        if (match) break;
      }
    }
    if (!physical) throw std::runtime_error("no Vulkan device matches '" + want + "'");
    const auto extensions = list<VkExtensionProperties>([&](uint32_t* n, VkExtensionProperties* e) {
      vkEnumerateDeviceExtensionProperties(physical, nullptr, n, e);
    });
    bool has = false;
    for (const VkExtensionProperties& e : extensions)
      has |=
          std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0;
    if (!has)
      throw std::runtime_error(name + " does not offer " +
                               std::string(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME));
    uint32_t family = 0;
    const auto families =
        list<VkQueueFamilyProperties>([&](uint32_t* n, VkQueueFamilyProperties* f) {
          vkGetPhysicalDeviceQueueFamilyProperties(physical, n, f);
        });
    while (family < families.size() && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
      ++family;
    const float priority = 1;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = family;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    feature.pipelineExecutableInfo = VK_TRUE;
    // As the shim creates its devices: WebGPU's robustness.
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &feature;
    VkPhysicalDeviceFeatures supported;
    vkGetPhysicalDeviceFeatures(physical, &supported);
    f2.features.robustBufferAccess = supported.robustBufferAccess;
    const char* extension = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.pNext = &f2;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &q;
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = &extension;
    check(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
    properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
    statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
    representations = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutableInternalRepresentationsKHR"));
  }
  ~Device() {
    if (device) vkDestroyDevice(device, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

std::string value(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return std::to_string(s.value.f64);
    default:
      return "?";
  }
}

// Builds `path`'s pipeline and prints what the driver says about it.
void inspect(Device& d, const std::string& path, const std::string& irDir) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  const wgsl::Result r = wgsl::translate(text.str());
  if (!r.ok()) throw std::runtime_error(path + ":\n" + wgsl::formatDiagnostics(r.diagnostics));

  std::map<uint32_t, std::vector<VkDescriptorSetLayoutBinding>> groups;
  for (const wgsl::BindingInfo& b : r.reflection.bindings)
    groups[b.group].push_back({b.binding,
                               b.kind == wgsl::BindingInfo::Kind::Uniform
                                   ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  const uint32_t sets = groups.empty() ? 0 : groups.rbegin()->first + 1;
  std::vector<VkDescriptorSetLayout> layouts(sets);
  for (uint32_t g = 0; g < sets; ++g) {
    VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = static_cast<uint32_t>(groups[g].size());
    li.pBindings = groups[g].data();
    check(vkCreateDescriptorSetLayout(d.device, &li, nullptr, &layouts[g]),
          "vkCreateDescriptorSetLayout");
  }
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = sets;
  pli.pSetLayouts = layouts.data();
  VkPipelineLayout layout;
  check(vkCreatePipelineLayout(d.device, &pli, nullptr, &layout), "vkCreatePipelineLayout");
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = r.spirv.size() * sizeof(uint32_t);
  mi.pCode = r.spirv.data();
  VkShaderModule module;
  check(vkCreateShaderModule(d.device, &mi, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
             VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkPipeline pipeline;
  check(vkCreateComputePipelines(d.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline),
        "vkCreateComputePipelines");

  VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pi.pipeline = pipeline;
  const auto executables = list<VkPipelineExecutablePropertiesKHR>(
      [&](uint32_t* n, VkPipelineExecutablePropertiesKHR* p) { d.properties(d.device, &pi, n, p); },
      {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  const auto count = static_cast<uint32_t>(executables.size());
  std::printf("== %s (%zu bytes of SPIR-V, %u executables)\n", path.c_str(),
              r.spirv.size() * sizeof(uint32_t), count);
  for (uint32_t e = 0; e < count; ++e) {
    std::printf("  executable %u: %s (%s), subgroup size %u\n", e, executables[e].name,
                executables[e].description, executables[e].subgroupSize);
    VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = pipeline;
    ei.executableIndex = e;
    const auto stats = list<VkPipelineExecutableStatisticKHR>(
        [&](uint32_t* n, VkPipelineExecutableStatisticKHR* s) {
          d.statistics(d.device, &ei, n, s);
        },
        {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    for (const VkPipelineExecutableStatisticKHR& s : stats)
      std::printf("    %-32s %12s  %s\n", s.name, value(s).c_str(), s.description);
    if (irDir.empty()) continue;
    // Sizes first, then the text into buffers of those sizes.
    auto irs = list<VkPipelineExecutableInternalRepresentationKHR>(
        [&](uint32_t* n, VkPipelineExecutableInternalRepresentationKHR* ir) {
          d.representations(d.device, &ei, n, ir);
        },
        {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    uint32_t n = static_cast<uint32_t>(irs.size());
    std::vector<std::vector<char>> data(n);
    for (uint32_t i = 0; i < n; ++i) {
      data[i].resize(irs[i].dataSize);
      irs[i].pData = data[i].data();
    }
    d.representations(d.device, &ei, &n, irs.data());
    for (uint32_t i = 0; i < n; ++i) {
      const std::string base = path.substr(path.find_last_of('/') + 1);
      const std::string out =
          irDir + "/" + base + "." + std::to_string(e) + "." + std::to_string(i) + ".txt";
      std::ofstream(out, std::ios::binary)
          .write(data[i].data(), static_cast<std::streamsize>(irs[i].dataSize));
      std::printf("    representation %u: %s (%s), %zu bytes -> %s\n", i, irs[i].name,
                  irs[i].description, irs[i].dataSize, out.c_str());
    }
  }
  vkDestroyPipeline(d.device, pipeline, nullptr);
  vkDestroyShaderModule(d.device, module, nullptr);
  vkDestroyPipelineLayout(d.device, layout, nullptr);
  for (VkDescriptorSetLayout l : layouts) vkDestroyDescriptorSetLayout(d.device, l, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  std::string device, irDir;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--device" || a == "--ir") && i + 1 < argc) {
      (a == "--device" ? device : irDir) = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: %s [--device NAME] [--ir DIR] kernel.wgsl...\n", argv[0]);
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--device NAME] [--ir DIR] kernel.wgsl...\n", argv[0]);
    return 2;
  }
  try {
    Device d(device);
    std::printf("%s\n", d.name.c_str());
    for (const std::string& f : files) inspect(d, f, irDir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipeline_stats: %s\n", e.what());
    return 1;
  }
  return 0;
}
