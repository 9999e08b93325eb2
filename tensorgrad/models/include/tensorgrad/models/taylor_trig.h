// sin and cos by their Taylor series in double, operation for operation as the parity cases'
// JavaScript side computes them (tests/parity/cases/*.mjs), so data the samples compute from them
// (kan-tiny's targets, cart-pole's physics) has the same bits in C++ and in the browser, whatever
// the C library's last bit. Accurate to double rounding for |x| <= π.
#pragma once

namespace tg_models {

inline double sinSeries(double x) {
  const double x2 = x * x;
  double term = x, s = x;
  for (int k = 1; k <= 12; ++k) {
    term = -term * x2 / static_cast<double>((2 * k) * (2 * k + 1));
    s += term;
  }
  return s;
}

inline double cosSeries(double x) {
  const double x2 = x * x;
  double term = 1, s = 1;
  for (int k = 1; k <= 12; ++k) {
    term = -term * x2 / static_cast<double>((2 * k - 1) * (2 * k));
    s += term;
  }
  return s;
}

}  // namespace tg_models
