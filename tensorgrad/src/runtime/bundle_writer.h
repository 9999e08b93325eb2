// What the bundle writer and TENSORGRAD_DUMP share: a call site as the bundle format writes it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tensorgrad/ir.h"

namespace tg::detail {

// The function a call site is in, short: "tg_models::mlpLoss" for a C++ site (return type and
// parameters dropped; a lambda as "main.<lambda>"), the frame's function for a JavaScript one
// ("lossFn" from "at lossFn (file:///app/train.mjs:12:5)"); "" when there is none.
std::string siteFunction(const CallSite& site);
// A C++ call site as one JavaScript-style stack frame: "at <function> (<file>:<line>:<column>)".
std::string siteFrame(const CallSite& site);
// A graph as a bundle writes it: graphToJson with each tensor's call site, and non-finite
// attributes as the strings graphFromJson reads.
nlohmann::json bundleGraphJson(const Graph& graph);

}  // namespace tg::detail
