// libFuzzer target over the front end (lexer, parser, resolver and lowering): any input must end
// in either GLSL or a CompileError — never a crash, a hang, a sanitizer report or another exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "emitter.h"
#include "parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const wgsl::detail::Module module = wgsl::detail::parse(source);
    (void)wgsl::detail::lower(module);
  } catch (const wgsl::detail::CompileError&) {
  }
  return 0;
}
