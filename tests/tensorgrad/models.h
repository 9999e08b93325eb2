// The sample models the tensorgrad tests and benchmarks use most (mlp-sin, transformer); the
// ports themselves live with the other samples' models in samples/models.
#pragma once

#include "../../samples/models/mlp_sin.h"
#include "../../samples/models/transformer.h"
