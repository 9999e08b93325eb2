// Errors carry a source position; rendering adds the offending line and a caret, like Tint.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "wgsl_subset/wgsl_subset.h"

namespace wgsl::detail {

struct SourcePos {
  uint32_t line = 1, column = 1;
};

// Thrown inside the front end; translate() turns it into a Diagnostic.
struct CompileError : std::runtime_error {
  CompileError(SourcePos p, const std::string& message) : std::runtime_error(message), pos(p) {}
  SourcePos pos;
};

[[noreturn]] inline void fail(SourcePos p, const std::string& message) {
  throw CompileError(p, message);
}
[[noreturn]] inline void unsupported(SourcePos p, const std::string& construct) {
  throw CompileError(p, "unsupported in this WGSL subset: " + construct);
}

Diagnostic makeDiagnostic(std::string_view source, SourcePos pos, const std::string& message);

}  // namespace wgsl::detail
