// The WGSL of element-wise ops computed together in one kernel (KernelSet::Fast's fusion, and the
// epilogue of a fast matmul). A member's value is computed at one flat index of its output; each
// of its inputs is then read (from a buffer, or as another member's value) at the index the op
// maps that to: the same index for a same-shape input, the broadcast index for a smaller one, the
// same flat index through a reshape, the permuted index through a permute. So broadcasts,
// reshapes and permutes cost no kernel of their own: they are their consumers' indexing.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tensorgrad/passes.h"

namespace tg::detail {

// Axis d of flat index `at` (a WGSL u32 expression) into `shape`, as a WGSL expression.
std::string axisOf(const std::string& at, const Shape& shape, size_t d);

class FusedChain {
 public:
  // `members`: the ops the kernel computes, in op order; buffers read bind from `firstBinding`.
  FusedChain(const Graph& graph, std::vector<int> members, size_t firstBinding);

  // A value the kernel has already (a matmul's result): members read `value` for `tensor`, or
  // with a `lane` (see value()), that lane of the vec4 `value`.
  void provide(int tensor, std::string value);
  // A value the kernel has added in already (a product summed into a matmul's K loop): members
  // read 0.0 for `tensor`, in every lane, and an add of it is its other input.
  void provideZero(int tensor);
  // A buffer the kernel has bound already (a matmul's operand): reads of `tensor` at index i
  // call `element`(i) -> f32, and the vec4 loads (see vec4Loads) `vec4`(q) -> vec4<f32>; it is
  // no external input and binds nothing.
  void reuse(int tensor, std::string element, std::string vec4);
  // `tensor` is read at index variable `index` (the caller's, e.g. a matmul's element along the
  // path to the chain's output), whatever its reader computes.
  void pin(int tensor, std::string index);
  // Appends to body() the statements computing `tensor` at flat index `at`; returns its WGSL
  // value. With a `lane` ("x".."w"), values are named per lane and a buffer read is lane `lane`
  // of `ld<k>`, the vec4 the caller loads from binding k at `at` (see vec4Loads).
  std::string value(int tensor, const std::string& at, const std::string& lane = "");

  const std::string& body() const { return body_; }
  const std::string& preamble() const { return preamble_; }
  // Read-only declarations of the buffers read (element type vec4 when `vec4`), binding order.
  std::string bindings(bool vec4 = false) const;
  // `let ld<k> = in<k>[at];` for every buffer read (vec4 bindings).
  std::string vec4Loads(const std::string& at) const;
  const std::vector<int>& external() const { return external_; }
  // Every buffer read was at index `at` (so the kernel can read and write vec4s).
  bool readsOnlyAt(const std::string& at) const;

  // Values computed from here on may live in a block of their own (a loop's body): `restore`
  // forgets them, so a later block computes them again instead of naming a variable out of scope.
  // Names stay unique across blocks. Buffers read and the body are kept.
  struct Scope {
    std::map<std::pair<int, std::string>, std::string> values;
    std::map<std::string, std::string> indexVars;
  };
  Scope save() const { return {value_, indexVar_}; }
  void restore(Scope s) {
    value_ = std::move(s.values);
    indexVar_ = std::move(s.indexVars);
  }

 private:
  std::string inputIndex(const Op& op, size_t input, const std::string& at);
  std::string let(const std::string& expr);  // an index variable holding `expr` (deduplicated)

  const Graph& graph_;
  std::vector<int> members_;
  size_t firstBinding_;
  std::map<int, std::string> provided_, pinned_;
  std::map<int, std::pair<std::string, std::string>> reused_;  // tensor → (element, vec4) fns
  std::vector<int> reusedRead_;                                 // of those, the ones read
  std::set<int> zeros_;
  std::map<int, std::string> array_;                               // tensor → its binding's name
  std::map<std::pair<int, std::string>, std::string> value_;       // (tensor, index+lane) → value
  std::map<std::string, std::string> indexVar_;                    // index expression → variable
  std::vector<int> external_;
  std::vector<std::string> readIndices_;
  std::map<int, size_t> ordinals_;  // member op → the number its values are named by
  std::set<std::string> names_;  // every value variable declared, in any block
  int indexVars_ = 0;             // index variables declared, in any block
  std::string body_, preamble_;
};

}  // namespace tg::detail
