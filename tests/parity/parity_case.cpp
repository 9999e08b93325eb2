#include "parity_case.h"

#include <stdexcept>

namespace tg_parity {

std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}

std::vector<float> uniform(tg::Mulberry32& rng, int64_t n, double lo, double hi) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(lo + (hi - lo) * rng.next());
  return v;
}

std::vector<int32_t> labels(tg::Mulberry32& rng, int64_t n, int32_t classes) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = static_cast<int32_t>(rng.next() * classes);  // floor: u >= 0
  return v;
}

std::vector<float> pixels(tg::Mulberry32& rng, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (float& v : out) {
    const double u = rng.next();
    v = u < 0.75 ? 0.f : static_cast<float>((u - 0.75) * 4);
  }
  return out;
}

std::vector<float> gauss(tg::Mulberry32& rng, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (float& v : out) {
    double s = 0;
    for (int k = 0; k < 12; ++k) s += rng.next();
    v = static_cast<float>(s - 6);
  }
  return out;
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
