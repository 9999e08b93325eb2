#include <algorithm>

#include "op_registry.h"

namespace tg::detail {
namespace {

OpTable buildTable() {
  OpTable table;
  registerLeafOps(table);
  registerElementwiseOps(table);
  registerUnaryOps(table);
  registerRandomOps(table);
  registerReduceOps(table);
  registerShapeOps(table);
  registerLinalgOps(table);
  registerIndexingOps(table);
  registerSoftmaxOps(table);
  registerSelectOps(table);
  registerOptimizerOps(table);
  registerSliceOps(table);
  registerConvOps(table);
  std::sort(table.begin(), table.end(),
            [](const OpDef& a, const OpDef& b) { return a.kind < b.kind; });
  for (int k = 0; k < kOpKindCount; ++k) {
    if (static_cast<int>(table.size()) <= k ||
        static_cast<int>(table[static_cast<size_t>(k)].kind) != k) {
      throw std::logic_error("op registry: op kind " + std::to_string(k) +
                             " has no entry (or two)");
    }
  }
  return table;
}

const OpTable& table() {
  static const OpTable t = buildTable();
  return t;
}

}  // namespace

std::function<KernelSource(const KernelArgs&)>& kernelOf(OpTable& table, OpKind kind) {
  for (OpDef& d : table) {
    if (d.kind == kind) return d.kernel;
  }
  throw std::logic_error("op registry: kernel for an unregistered op kind");
}

std::function<KernelSource(const KernelArgs&)>& fastKernelOf(OpTable& table, OpKind kind) {
  for (OpDef& d : table) {
    if (d.kind == kind) return d.fastKernel;
  }
  throw std::logic_error("op registry: fast kernel for an unregistered op kind");
}

void setExpr(OpTable& table, OpKind kind,
             std::function<std::string(const Op&, const std::vector<std::string>&)> expr,
             std::string preamble) {
  for (OpDef& d : table) {
    if (d.kind == kind) {
      d.expr = std::move(expr);
      d.exprPreamble = std::move(preamble);
      return;
    }
  }
  throw std::logic_error("op registry: expression for an unregistered op kind");
}

const OpDef& opDef(OpKind kind) {
  return table()[static_cast<size_t>(kind)];
}

const OpDef* opDefByName(std::string_view name) {
  for (const OpDef& d : table()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::optional<Shape> broadcastTrailing(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t av = i + a.size() < rank ? 1 : a[i + a.size() - rank];
    const int64_t bv = i + b.size() < rank ? 1 : b[i + b.size() - rank];
    if (av == bv || bv == 1)
      out[i] = av;
    else if (av == 1)
      out[i] = bv;
    else
      return std::nullopt;
  }
  return out;
}

bool shapesEqual(const Shape& a, const Shape& b) {
  return a == b;
}

std::vector<int64_t> stridesOf(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

int64_t broadcastIndex(int64_t outIdx, const Shape& to, const Shape& from) {
  if (to == from) return outIdx;
  int64_t idx = 0, fromStride = 1;
  for (size_t k = to.size(); k-- > 0;) {
    const int64_t coord = outIdx % to[k];
    outIdx /= to[k];
    const size_t fromRankOffset = to.size() - from.size();
    if (k >= fromRankOffset) {
      const int64_t dim = from[k - fromRankOffset];
      if (dim != 1) idx += coord * fromStride;
      fromStride *= dim;
    }
  }
  return idx;
}

CallSite internalSite(const char* opName, Loc loc) {
  return CallSite{opName, loc};
}

Loc GradContext::loc() const {
  const auto& site = graph_.tensor(op_.out).site;
  return site ? site->location : Loc::current();
}

void GradContext::accumulate(size_t i, const Tensor& contribution) {
  const int inputId = op_.inputs.at(i);
  const Shape& target = graph_.tensor(inputId).shape;
  Tensor c = contribution;
  if (c.shape() != target) c = sumToShape(c, target, loc());
  auto& slot = cotangents_.at(static_cast<size_t>(inputId));
  slot = slot ? add(*slot, c, loc()) : c;
}

}  // namespace tg::detail

namespace tg {
std::string_view opKindName(OpKind kind) {
  return detail::opDef(kind).name;
}
}  // namespace tg
