// The runtime tests' environment: their SPIR-V and pipeline caches live in the build tree unless
// TENSORGRAD_CACHE_DIR says otherwise, and under WEBGPU_SHIM_VALIDATION=1 any Vulkan validation
// message fails the run. The shim shares one VkInstance per configuration, so a messenger made
// here hears what the runtime's devices do.
#include <gtest/gtest.h>
#include <webgpu/webgpu_cpp.h>

#include <cstdlib>

namespace {

const int kCacheDirSet = setenv("TENSORGRAD_CACHE_DIR", TG_TEST_CACHE_DIR, /*overwrite=*/0);

class ValidationWatch : public ::testing::Environment {
 public:
  void SetUp() override { instance_ = wgpu::CreateInstance(); }
  void TearDown() override {
    EXPECT_EQ(instance_.GetVulkanValidationMessageCount(), 0u)
        << "Vulkan validation reported problems (see stderr)";
  }

 private:
  wgpu::Instance instance_;
};

const auto* const kWatch = ::testing::AddGlobalTestEnvironment(new ValidationWatch);

}  // namespace
