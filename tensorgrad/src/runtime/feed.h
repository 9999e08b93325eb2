// Checking a call's inputs against the declared ones, and resolving parametric (tg::null) dims.
// Every message names the input and the shape it needs.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "tensorgrad/runtime.h"

namespace tg::detail {

// The declarations with every tg::null replaced by the size the feed implies; all wildcards of
// one call must agree. Returns the error message instead when they cannot be resolved.
std::variant<InputDecls, std::string> resolveShapes(const InputDecls& decls, const Feed& feed,
                                                    std::string_view call);

// Empty when `feed` has exactly the declared inputs with the declared dtypes and sizes.
std::string checkFeed(const InputDecls& decls, const Feed& feed, std::string_view call);

// The index of the first NaN or ±Inf in `values`, if any: one pass, branch-free per block.
std::optional<size_t> firstNonFinite(const float* values, size_t n);
// "<what> has NaN at index 3" (or +Inf/-Inf) for `values[index]`.
std::string describeNonFinite(const std::string& what, const float* values, size_t index);

// Empty when every f32 input value is finite; otherwise names the input and the first bad index.
// Checked on the host before anything is uploaded, so a bad feed changes no parameter.
std::string checkFinite(const Feed& feed, std::string_view call);

// Each input's bytes by name, for GraphExecutor::execute (the caller adds runtime scalars).
std::map<std::string, const void*> feedBytes(const Feed& feed);

// A key naming resolved shapes, for the per-shape cache.
std::string shapeKey(const InputDecls& resolved);

bool isParametric(const InputDecls& decls);

}  // namespace tg::detail
