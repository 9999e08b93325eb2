// libFuzzer target over the front end (lexer, parser, alias expansion, resolver, validator and
// GLSL writer): any input must end in either GLSL or a CompileError — never a crash, a hang, a
// sanitizer report or another exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "expand_aliases.h"
#include "glsl_writer.h"
#include "parser.h"
#include "resolver.h"
#include "validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    wgsl::detail::Module ast = wgsl::detail::parse(source);
    wgsl::detail::expandAliases(ast);
    wgsl::detail::ir::Module module;
    wgsl::Reflection reflection;
    wgsl::detail::resolve(ast, {}, module, reflection);
    wgsl::detail::validate(module);
    (void)wgsl::detail::writeGlsl(module);
  } catch (const wgsl::detail::CompileError&) {
  }
  return 0;
}
