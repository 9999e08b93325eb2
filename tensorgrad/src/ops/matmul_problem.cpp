#include "matmul_problem.h"

namespace tg::detail {

MatmulProblem normalized(MatmulProblem p) {
  if (!p.batchedRhs && !p.transA && p.batches > 1) {
    p.m *= p.batches;
    p.batches = 1;
  }
  return p;
}

int64_t blocks(const MatmulProblem& p, int64_t bm, int64_t bn) {
  return p.batches * ceilDiv(p.m, bm) * ceilDiv(p.n, bn);
}

bool columnShape(const MatmulProblem& p) {
  return (p.m == 1 && !p.transB && p.n % 4 == 0) || (p.n == 1 && p.transA && p.m % 4 == 0);
}

}  // namespace tg::detail
