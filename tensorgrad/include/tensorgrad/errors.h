// Errors raised while a model is traced or compiled. Each names the op, the offending shapes or
// dtypes, and the user's call site.
#pragma once

#include <stdexcept>
#include <string>

#include "tensorgrad/ir.h"

namespace tg {

// A shape or dtype rule was violated. what() is the rule's message followed by "\n  at <site>".
class ShapeError : public std::runtime_error {
 public:
  ShapeError(const std::string& message, const CallSite* site);
};

// shapeSize() of a shape whose element count does not fit in int64_t (or with a negative dim).
// Ops rethrow it as a ShapeError naming the op and the call site.
class ShapeOverflowError : public ShapeError {
 public:
  explicit ShapeOverflowError(const std::string& message) : ShapeError(message, nullptr) {}
};

// Misuse outside an op's shape rule: ops called outside a trace, duplicate input names, a module
// parameter used in a trace it does not belong to, an optimizer filter that matches nothing.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tg
