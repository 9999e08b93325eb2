// checkWebGPU(): ok with the adapter's name, or upstream's reason ('no-webgpu' | 'no-adapter')
// and a message saying what to do.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace {

TEST(CheckWebGPU, OkNamesTheAdapterAndGivesNoReason) {
  const tg::WebGPUSupport ok = tg::checkWebGPU();
  EXPECT_TRUE(ok.ok) << ok.message;
  EXPECT_FALSE(ok.adapter.empty());
  EXPECT_FALSE(ok.reason.has_value());
  EXPECT_TRUE(ok.message.empty());
}

// An adapter filter that matches nothing: Vulkan works, no adapter: upstream's 'no-adapter'.
TEST(CheckWebGPU, NoMatchingAdapterIsNoAdapter) {
  const tg::WebGPUSupport none = tg::checkWebGPU({.device = "no-such-gpu-xyz"});
  EXPECT_FALSE(none.ok);
  ASSERT_TRUE(none.reason.has_value());
  EXPECT_EQ(*none.reason, tg::WebGPUFailureReason::NoAdapter);
  EXPECT_EQ(tg::webGPUFailureReasonName(*none.reason), "no-adapter");
  EXPECT_NE(none.message.find("no-such-gpu-xyz"), std::string::npos) << none.message;
  EXPECT_NE(none.message.find("mesa-vulkan-drivers"), std::string::npos) << none.message;
  tg_models::MLP model;
  EXPECT_THROW(tg::compile(tg_models::mlpSpec(model), {.device = "no-such-gpu-xyz"}), tg::CompileError);
}

// No Vulkan driver at all: upstream's 'no-webgpu' (a browser without navigator.gpu). The shim
// keeps one VkInstance per process, so this runs in a fresh process (a death test re-executes
// the binary) whose Vulkan loader is pointed at a driver manifest that does not exist.
TEST(CheckWebGPU, NoVulkanDriverIsNoWebGPU) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  setenv("VK_DRIVER_FILES", "/nonexistent/tensorgrad-test-icd.json", 1);
  setenv("VK_ICD_FILENAMES", "/nonexistent/tensorgrad-test-icd.json", 1);
  unsetenv("VK_ADD_DRIVER_FILES");
  EXPECT_EXIT(
      {
        const tg::WebGPUSupport s = tg::checkWebGPU();
        std::fprintf(stderr, "ok=%d reason=%s message=%s\n", s.ok,
                     s.reason ? std::string(tg::webGPUFailureReasonName(*s.reason)).c_str() : "none",
                     s.message.c_str());
        // _Exit: the check is the output; leak reports of the half-started loader are not.
        std::_Exit(!s.ok && s.reason == tg::WebGPUFailureReason::NoWebGPU ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "ok=0 reason=no-webgpu message=.*mesa-vulkan-drivers");
  unsetenv("VK_DRIVER_FILES");
  unsetenv("VK_ICD_FILENAMES");
}

}  // namespace
