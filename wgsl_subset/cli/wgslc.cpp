// wgslc: translate a WGSL compute shader to SPIR-V, or inspect it.
//   wgslc kernel.wgsl -o kernel.spv     write SPIR-V
//   wgslc kernel.wgsl --validate        translate and run spirv-val; exit status only
//   wgslc kernel.wgsl --spirv-asm       print the SPIR-V disassembly
//   wgslc kernel.wgsl --glsl            print readable GLSL (SPIR-V through SPIRV-Cross)
//   wgslc kernel.wgsl --reflect         print bindings, workgroup size and overrides as JSON
// Exit status 1 with diagnostics on stderr when the input is rejected.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <spirv-tools/libspirv.hpp>
#include <spirv_cross/spirv_glsl.hpp>
#include <sstream>

#include "wgsl_subset/wgsl_subset.h"

namespace {

nlohmann::json reflectionJson(const wgsl::Reflection& r) {
  nlohmann::json bindings = nlohmann::json::array();
  for (const auto& b : r.bindings) {
    bindings.push_back(
        {{"group", b.group},
         {"binding", b.binding},
         {"type", b.kind == wgsl::BindingInfo::Kind::Storage ? "storage" : "uniform"},
         {"access", b.kind == wgsl::BindingInfo::Kind::Uniform ? "read"
                    : b.readOnly                               ? "read"
                                                               : "read_write"},
         {"elementType", b.elementType},
         {"name", b.name}});
  }
  nlohmann::json overrides = nlohmann::json::array();
  for (const auto& o : r.overrides) {
    overrides.push_back(
        {{"name", o.name},
         {"id", o.id},
         {"type", o.type},
         {"default", o.defaultValue ? nlohmann::json(*o.defaultValue) : nlohmann::json(nullptr)}});
  }
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& c : r.computedCounts) {
    counts.push_back(
        {{"id", c.id},
         {"text", c.text},
         {"program", c.program},
         {"default", c.defaultValue ? nlohmann::json(*c.defaultValue) : nlohmann::json(nullptr)}});
  }
  return {{"entryPoint", r.entryPoint},
          {"entryPoints", r.entryPoints},
          {"workgroupSize", r.workgroupSize},
          {"workgroupSizeOverrides", r.workgroupSizeOverrides},
          {"bindings", bindings},
          {"overrides", overrides},
          {"workgroupStorageBytes", r.workgroupStorageBytes},
          {"computedCounts", counts}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wgslc: the WGSL subset tensorgrad emits → SPIR-V for Vulkan 1.1 compute"};
  std::string input, output;
  bool validate = false, asmOut = false, glslOut = false, reflect = false;
  app.add_option("input", input, "WGSL source file ('-' for stdin)")->required();
  app.add_option("-o,--output", output, "write SPIR-V here");
  app.add_flag(
      "--validate", validate,
      "run spirv-val on the output (always done; with no other output, only the exit status)");
  app.add_flag("--spirv-asm", asmOut, "print the SPIR-V disassembly");
  app.add_flag("--glsl", glslOut, "print readable GLSL of the SPIR-V (SPIRV-Cross)");
  app.add_flag("--reflect", reflect, "print the reflection as JSON");
  std::string entry;
  app.add_option("--entry", entry,
                 "the @compute function to output (default: the first; every entry point of the "
                 "module is translated and checked either way)");
  std::vector<std::string> features;
  app.add_option("--feature", features,
                 "a WebGPU device feature the module may use: shader-f16 (enable f16;), "
                 "subgroups (enable subgroups;); repeatable")
      ->check(CLI::IsMember({"shader-f16", "subgroups"}))
      ->allow_extra_args(false);  // one value per --feature: the input file follows
  CLI11_PARSE(app, argc, argv);

  std::stringstream src;
  if (input == "-") {
    src << std::cin.rdbuf();
  } else {
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "wgslc: cannot read '%s'\n", input.c_str());
      return 1;
    }
    src << in.rdbuf();
  }
  wgsl::Options options;
  options.entryPoint = entry;
  for (const std::string& f : features) {
    if (f == "shader-f16") options.shaderF16 = true;
    if (f == "subgroups") options.subgroups = true;
  }
  const wgsl::Result r = wgsl::translate(src.str(), options);
  if (!r.ok()) {
    for (const auto& d : r.diagnostics)
      std::fprintf(stderr, "%s:%s\n", input.c_str(), d.rendered.c_str());
    return 1;
  }
  // Each SPIR-V module holds one entry point: the others are translated here only to check them.
  for (const std::string& other : r.reflection.entryPoints) {
    if (other == r.reflection.entryPoint) continue;
    options.entryPoint = other;
    const wgsl::Result o = wgsl::translate(src.str(), options);
    for (const auto& d : o.diagnostics)
      std::fprintf(stderr, "%s:%s\n", input.c_str(), d.rendered.c_str());
    if (!o.ok()) return 1;
  }
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(r.spirv.data()),
              static_cast<std::streamsize>(r.spirv.size() * 4));
    if (!out) {
      std::fprintf(stderr, "wgslc: cannot write '%s'\n", output.c_str());
      return 1;
    }
  }
  if (asmOut) {
    std::string text;
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
    tools.Disassemble(r.spirv, &text,
                      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT);
    std::fputs(text.c_str(), stdout);
  }
  if (glslOut) {
    spirv_cross::CompilerGLSL glsl(r.spirv);
    spirv_cross::CompilerGLSL::Options o;
    o.version = 450;
    o.vulkan_semantics = true;
    glsl.set_common_options(o);
    std::fputs(glsl.compile().c_str(), stdout);
  }
  if (reflect) std::puts(reflectionJson(r.reflection).dump(2).c_str());
  (void)validate;
  return 0;
}
