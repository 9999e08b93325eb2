#include "parity_case.h"

#include <stdexcept>

namespace tg_parity {

std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}

namespace detail {

tg::StepResult stepChecked(const std::function<std::future<tg::StepResult>()>& call, int step) {
  tg::StepResult r = call().get();
  if (r.kind != tg::ResultKind::Completed) {
    throw std::runtime_error("step " + std::to_string(step) + " " +
                             std::string(tg::resultKindName(r.kind)) + ": " + r.error);
  }
  return r;
}

tg::RunResult runChecked(const std::function<std::future<tg::RunResult>()>& call, const std::string& what) {
  tg::RunResult r = call().get();
  if (r.kind != tg::ResultKind::Completed) {
    throw std::runtime_error(what + " " + std::string(tg::resultKindName(r.kind)) + ": " + r.error);
  }
  return r;
}

}  // namespace detail
}  // namespace tg_parity
