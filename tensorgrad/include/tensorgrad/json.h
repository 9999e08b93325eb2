// Graph export as JSON with upstream's field names ({ops: [{kind, out, a, b, ...}], tensors:
// [{id, shape, dtype, source}], outputs, captures}), so graphs from both can be diffed.
#pragma once

#include <nlohmann/json.hpp>

#include "tensorgrad/compile.h"

namespace tg {

nlohmann::json graphToJson(const Graph& graph);

// A graph that does not read back: the message names the op index, its kind and the field
// ("ops[12] (matmul): field 'b': tensor 99 does not exist").
class GraphJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The inverse of graphToJson, and strict: an unknown op kind or field, a missing field, a value
// of the wrong type, a tensor id that dangles or is used before its op, a source that is not the
// producing op, and an output shape or dtype other than the one the op's rule gives are all
// GraphJsonError. Tensors may carry a call site {"opName", "frames": [JS stack frames]} (bundles
// do; graphToJson writes none). Non-finite attribute values may be written "Infinity",
// "-Infinity" or "NaN" (JSON has no literal for them).
Graph graphFromJson(const nlohmann::json& json);
nlohmann::json planToJson(const BufferPlan& plan);

}  // namespace tg
