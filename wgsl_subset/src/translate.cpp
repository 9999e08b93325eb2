// The pipeline: parse → expand aliases → resolve → validate → write GLSL → glslang → SPIR-V
// (Vulkan 1.1) → spirv-val.
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>
#include <spirv-tools/libspirv.hpp>
#include <sstream>

#include "expand_aliases.h"
#include "glsl_writer.h"
#include "parser.h"
#include "resolver.h"
#include "validator.h"

namespace wgsl {
namespace detail {

Diagnostic makeDiagnostic(std::string_view source, SourcePos pos, const std::string& message) {
  Diagnostic d{pos.line, pos.column, message, {}};
  std::string line;
  size_t start = 0;
  for (uint32_t l = 1; l < pos.line && start != std::string_view::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start != std::string_view::npos && start <= source.size()) {
    const size_t end = source.find('\n', start);
    line = std::string(
        source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
  }
  std::string caret(pos.column > 0 ? pos.column - 1 : 0, ' ');
  for (size_t i = 0; i < caret.size() && i < line.size(); ++i) {
    if (line[i] == '\t') caret[i] = '\t';
  }
  d.rendered = "error: " + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " +
               message + "\n" + line + "\n" + caret + "^";
  return d;
}

namespace {

// glslang rejecting our own GLSL is a translator bug, reported against the whole module.
std::vector<uint32_t> compileGlsl(const std::string& glsl, std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
  glslang::TShader shader(EShLangCompute);
  const char* text = glsl.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
  if (!shader.parse(GetDefaultResources(), 450, false, EShMsgDefault)) {
    *error = shader.getInfoLog();
    return {};
  }
  // No TProgram::link: for one compilation unit it only runs TIntermediate::finalCheck, whose
  // call-graph checks (recursion, reachable bodies) compare every call with every call and
  // function: quadratic, 0.6 s of CPU for a 4,000-function chain. Our GLSL has no recursion (the
  // resolver rejects it) and every called function has a body; finalCheck's other work is for
  // stages other than compute and unsized arrays outside buffer blocks, which we never emit.
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;
  glslang::GlslangToSpv(*shader.getIntermediate(), spirv, &options);
  return spirv;
}

}  // namespace
}  // namespace detail

Result translate(std::string_view source, const Options& options) {
  Result r;
  try {
    detail::Module ast = detail::parse(source);
    detail::expandAliases(ast);
    detail::ir::Module module;
    detail::resolve(ast, options, module, r.reflection);
    detail::validate(module);
    r.glsl = detail::writeGlsl(module);
  } catch (const detail::CompileError& e) {
    r.diagnostics.push_back(detail::makeDiagnostic(source, e.pos, e.what()));
    return r;
  } catch (const std::exception& e) {  // never let an unexpected failure escape as a crash
    r.diagnostics.push_back(
        detail::makeDiagnostic(source, {1, 1}, std::string("internal error: ") + e.what()));
    return r;
  }
  std::string error;
  r.spirv = detail::compileGlsl(r.glsl, &error);
  if (r.spirv.empty()) {
    r.diagnostics.push_back(detail::makeDiagnostic(
        source, {1, 1}, "internal error: the lowered GLSL did not compile: " + error));
    return r;
  }
  if (std::string messages; options.validate && !validateSpirv(r.spirv, &messages)) {
    r.diagnostics.push_back(detail::makeDiagnostic(
        source, {1, 1}, "internal error: output failed spirv-val: " + messages));
    r.spirv.clear();
  }
  return r;
}

bool validateSpirv(const std::vector<uint32_t>& spirv, std::string* messages) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
        if (messages) *messages += m;
      });
  // The validator's friendly-name mapper makes repeated OpNames unique by trying suffixes one by
  // one: quadratic in the number of equal names (glslang names every call temporary "param"), so
  // 4,000 chained functions took seconds. Debug names carry no semantics: validate without them.
  std::vector<uint32_t> stripped;
  stripped.reserve(spirv.size());
  size_t i = 0;
  for (; i < spirv.size() && i < 5; ++i) stripped.push_back(spirv[i]);
  while (i < spirv.size()) {
    const uint32_t words = spirv[i] >> 16, opcode = spirv[i] & 0xFFFF;
    if (words == 0 || i + words > spirv.size()) {  // malformed: let the validator say so
      stripped.insert(stripped.end(), spirv.begin() + static_cast<std::ptrdiff_t>(i), spirv.end());
      break;
    }
    if (opcode != 5 && opcode != 6)  // OpName, OpMemberName
      stripped.insert(stripped.end(), spirv.begin() + static_cast<std::ptrdiff_t>(i),
                      spirv.begin() + static_cast<std::ptrdiff_t>(i + words));
    i += words;
  }
  return tools.Validate(stripped);
}

std::string formatDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string s;
  for (const auto& d : diagnostics) s += d.rendered + "\n";
  return s;
}

}  // namespace wgsl
