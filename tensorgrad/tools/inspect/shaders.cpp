// What a kernel becomes on Vulkan: the WGSL through wgsl_subset to SPIR-V, disassembled by
// SPIRV-Tools, and back to readable GLSL by SPIRV-Cross (as `wgslc --spirv-asm`, `--glsl`).
#include <spirv-tools/libspirv.hpp>
#include <spirv_cross/spirv_glsl.hpp>

#include "inspect.h"
#include "wgsl_subset/wgsl_subset.h"

namespace tg_inspect {

Shader translateShader(const std::string& wgsl) {
  const wgsl::Result r = wgsl::translate(wgsl);
  if (!r.ok())
    throw std::runtime_error("the kernel's WGSL does not translate:\n" +
                             wgsl::formatDiagnostics(r.diagnostics));
  Shader s;
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  if (!tools.Disassemble(
          r.spirv, &s.spirvAsm,
          SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    throw std::runtime_error("SPIRV-Tools could not disassemble the kernel's SPIR-V");
  spirv_cross::CompilerGLSL glsl(r.spirv);
  spirv_cross::CompilerGLSL::Options o;
  o.version = 450;
  o.vulkan_semantics = true;
  glsl.set_common_options(o);
  s.glsl = glsl.compile();
  return s;
}

}  // namespace tg_inspect
