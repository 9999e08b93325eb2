// For scripts/dawn_e2e_shaders.py --shim: creates a compute pipeline (layout "auto") for each
// `file.wgsl:entry` argument on the default device, and prints one line per argument:
// "<arg>\tOK" or "<arg>\t<the first line of the validation error>". Exit 0 unless the device
// could not be made.
#include <fstream>
#include <sstream>

#include "e2e.h"

using namespace e2e;

namespace {

std::string FirstError(const std::function<void()>& create) {
  std::string message;
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  create();
  instance.WaitAny(device.PopErrorScope(wgpu::CallbackMode::WaitAnyOnly,
                                        [&message](wgpu::PopErrorScopeStatus, wgpu::ErrorType type,
                                                   wgpu::StringView m) {
                                          if (type != wgpu::ErrorType::NoError)
                                            message = std::string(m);
                                        }),
                   UINT64_MAX);
  return message.substr(0, message.find('\n'));
}

}  // namespace

int main(int argc, char** argv) {
  Init();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t colon = arg.rfind(':');
    const std::string path = arg.substr(0, colon), entry = arg.substr(colon + 1);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    const std::string wgsl = text.str();
    std::string error = FirstError([&] {
      wgpu::ComputePipelineDescriptor desc{
          .compute = {.module = Shader(wgsl.c_str()), .entryPoint = entry.c_str()}};
      device.CreateComputePipeline(&desc);
    });
    std::cout << arg << "\t" << (error.empty() ? "OK" : error) << std::endl;
  }
  return 0;
}
