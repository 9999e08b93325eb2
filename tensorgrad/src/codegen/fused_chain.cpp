#include "fused_chain.h"

#include <algorithm>
#include <stdexcept>

#include "../ops/op_registry.h"

namespace tg::detail {
std::string axisOf(const std::string& at, const Shape& shape, size_t d) {
  const int64_t stride = stridesOf(shape)[d];
  const std::string q = stride == 1 ? at : "(" + at + " / " + u(stride) + ")";
  return d == 0 ? q : "(" + q + " % " + u(shape[d]) + ")";
}

FusedChain::FusedChain(const Graph& graph, std::vector<int> members, size_t firstBinding)
    : graph_(graph), members_(std::move(members)), firstBinding_(firstBinding) {}

void FusedChain::provide(int tensor, std::string value) {
  provided_[tensor] = std::move(value);
}

void FusedChain::reuse(int tensor, std::string element, std::string vec4) {
  reused_[tensor] = {std::move(element), std::move(vec4)};
}

void FusedChain::provideZero(int tensor) {
  zeros_.insert(tensor);
}

void FusedChain::pin(int tensor, std::string index) {
  pinned_[tensor] = std::move(index);
}

std::string FusedChain::let(const std::string& expr) {
  if (const auto it = indexVar_.find(expr); it != indexVar_.end()) return it->second;
  const std::string v = "ix" + std::to_string(indexVars_++);
  body_ += "  let " + v + " = " + expr + ";\n";
  return indexVar_[expr] = v;
}

std::string FusedChain::inputIndex(const Op& op, size_t input, const std::string& at) {
  const int t = op.inputs[input];
  if (const auto it = pinned_.find(t); it != pinned_.end()) return it->second;
  const Shape& in = graph_.tensor(t).shape;
  const Shape& out = graph_.tensor(op.out).shape;
  if (op.kind == OpKind::Permute) {  // (a square one too: same shape, other order)
    const auto strides = stridesOf(in);
    std::string e;
    for (size_t d = 0; d < out.size(); ++d) {
      if (out[d] == 1) continue;
      e += (e.empty() ? "" : " + ") + axisOf(at, out, d) + " * " +
           u(strides[static_cast<size_t>(op.attrs.perm[d])]);
    }
    return e.empty() ? "0u" : let(e);
  }
  if (op.kind == OpKind::Reshape || in == out) return at;  // same flat order
  // Right-aligned broadcast of a smaller input.
  if (shapeSize(in) == 1) return "0u";
  const auto strides = stridesOf(in);
  const size_t offset = out.size() - in.size();
  std::string e;
  for (size_t k = 0; k < in.size(); ++k) {
    if (in[k] == 1) continue;
    e += (e.empty() ? "" : " + ") + axisOf(at, out, k + offset) + " * " + u(strides[k]);
  }
  return e.empty() ? "0u" : let(e);
}

std::string FusedChain::value(int tensor, const std::string& at, const std::string& lane) {
  if (zeros_.contains(tensor)) return "0.0";
  if (const auto it = provided_.find(tensor); it != provided_.end())
    return lane.empty() ? it->second : it->second + "." + lane;
  const auto key = std::pair{tensor, at + "." + lane};
  if (const auto it = value_.find(key); it != value_.end()) return it->second;
  const int source = *graph_.tensor(tensor).source;
  if (const auto it = reused_.find(tensor); it != reused_.end()) {
    readIndices_.push_back(at);
    if (std::find(reusedRead_.begin(), reusedRead_.end(), tensor) == reusedRead_.end())
      reusedRead_.push_back(tensor);
    return value_[key] = lane.empty() ? it->second.first + "(" + at + ")"
                                      : "ld_" + it->second.second + "." + lane;
  }
  if (std::find(members_.begin(), members_.end(), source) == members_.end()) {
    if (!array_.contains(tensor)) {
      array_[tensor] = std::to_string(firstBinding_ + external_.size());
      external_.push_back(tensor);
    }
    readIndices_.push_back(at);
    const std::string& k = array_[tensor];
    return value_[key] = lane.empty() ? "in" + k + "[" + at + "]" : "ld" + k + "." + lane;
  }
  const Op& op = graph_.ops[static_cast<size_t>(source)];
  const OpDef& def = opDef(op.kind);
  if (!def.expr) throw std::logic_error("fused op " + std::string(def.name) + " has no expression");
  std::vector<std::string> in;
  for (size_t j = 0; j < op.inputs.size(); ++j)
    in.push_back(value(op.inputs[j], inputIndex(op, j, at), lane));
  // An add of a value the kernel has summed already (provideZero) is its other input.
  if (op.kind == OpKind::Add)
    for (size_t j = 0; j < 2; ++j)
      if (zeros_.contains(op.inputs[j])) return value_[key] = in[1 - j];
  if (!def.exprPreamble.empty() && preamble_.find(def.exprPreamble) == std::string::npos)
    preamble_ += def.exprPreamble;
  // Named by the member's order in the kernel, not by its op's number, so that kernels computing
  // the same thing in different places of a graph (a transformer's layers) have the same WGSL:
  // one pipeline, one binary on the device.
  const size_t ordinal = ordinals_.try_emplace(source, ordinals_.size()).first->second;
  std::string v = "v" + std::to_string(ordinal) + (lane.empty() ? "" : "_" + lane);
  while (names_.contains(v)) v += "b";  // the same member at a second index
  names_.insert(v);
  body_ += "  let " + v + " = " + def.expr(op, in) + ";\n";
  return value_[key] = v;
}

std::string FusedChain::bindings(bool vec4) const {
  std::string s;
  for (size_t k = 0; k < external_.size(); ++k) {
    const std::string type = detail::wgslType(graph_.tensor(external_[k]).dtype);
    s += "@group(0) @binding(" + std::to_string(firstBinding_ + k) + ") var<storage, read> in" +
         std::to_string(firstBinding_ + k) + " : array<" + (vec4 ? "vec4<" + type + ">" : type) +
         ">;\n";
  }
  return s;
}

std::string FusedChain::vec4Loads(const std::string& at) const {
  std::string s;
  for (size_t k = 0; k < external_.size(); ++k) {
    const std::string b = std::to_string(firstBinding_ + k);
    s += "  let ld" + b + " = in" + b + "[" + at + "];\n";
  }
  for (int t : reusedRead_) {
    const std::string& f = reused_.at(t).second;
    s += "  let ld_" + f + " = " + f + "(" + at + ");\n";
  }
  return s;
}

bool FusedChain::readsOnlyAt(const std::string& at) const {
  return std::all_of(readIndices_.begin(), readIndices_.end(),
                     [&](const std::string& r) { return r == at; });
}

}  // namespace tg::detail
