// Parameter initialisers and the init PRNG, bit-compatible with upstream: Mulberry32 seeded with
// the compile seed, one stream drawn in parameter order, normals by Box-Muller in double (cos
// branch, u1 clamped to >= 1e-10) rounded to f32.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "tensorgrad/ir.h"

namespace tg {

class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : state_(seed) {}
  double next();  // uniform in [0, 1), 32 bits of resolution
 private:
  uint32_t state_;
};

double boxMuller(Mulberry32& rng);

namespace init {
struct Randn {
  double scale = 0.02;
};
struct Zeros {};
struct Ones {};
struct Kaiming {
  double gain = 1.4142135623730951;
};  // std = gain / sqrt(fan_in), fan_in = shape[0]
struct Literal {
  std::vector<float> data{};
};

inline Randn randn(double scale = 0.02) {
  return {scale};
}
inline Zeros zeros() {
  return {};
}
inline Ones ones() {
  return {};
}
inline Kaiming kaiming(double gain = 1.4142135623730951) {
  return {gain};
}
inline Literal literal(std::vector<float> data) {
  return {std::move(data)};
}
}  // namespace init

using InitSpec = std::variant<init::Randn, init::Zeros, init::Ones, init::Kaiming, init::Literal>;

// AdamW's per-parameter decay default: on for randn/kaiming/literal, off for zeros/ones.
bool defaultDecay(const InitSpec& spec);

// Materialises one parameter, drawing from `rng` (throws TraceError on a literal of the wrong
// size).
std::vector<float> initialize(const InitSpec& spec, const Shape& shape, Mulberry32& rng,
                              const std::string& name);

}  // namespace tg
