// The whole public API.
#pragma once

#include "tensorgrad/codegen.h"
#include "tensorgrad/compile.h"
#include "tensorgrad/cpu_eval.h"
#include "tensorgrad/errors.h"
#include "tensorgrad/grad.h"
#include "tensorgrad/init.h"
#include "tensorgrad/json.h"
#include "tensorgrad/lr.h"
#include "tensorgrad/module.h"
#include "tensorgrad/nn.h"
#include "tensorgrad/ops.h"
#include "tensorgrad/optim.h"
#include "tensorgrad/passes.h"
#include "tensorgrad/runtime.h"
#include "tensorgrad/safetensors.h"
#include "tensorgrad/single_flight.h"
