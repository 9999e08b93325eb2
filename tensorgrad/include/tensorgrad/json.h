// Graph export as JSON with upstream's field names ({ops: [{kind, out, a, b, ...}], tensors:
// [{id, shape, dtype, source}], outputs, captures}), so graphs from both can be diffed.
#pragma once

#include <nlohmann/json.hpp>

#include "tensorgrad/compile.h"

namespace tg {

nlohmann::json graphToJson(const Graph& graph);
nlohmann::json planToJson(const BufferPlan& plan);

}  // namespace tg
