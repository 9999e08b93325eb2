#include "tensorgrad/module.h"

#include <cmath>
#include <numbers>

#include "tensorgrad/errors.h"

namespace tg {

double Mulberry32::next() {
  state_ += 0x6D2B79F5u;
  uint32_t t = state_;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

double boxMuller(Mulberry32& rng) {
  const double u1 = std::max(1e-10, rng.next());
  const double u2 = rng.next();
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

bool defaultDecay(const InitSpec& spec) {
  return !std::holds_alternative<init::Zeros>(spec) && !std::holds_alternative<init::Ones>(spec);
}

std::vector<float> initialize(const InitSpec& spec, const Shape& shape, Mulberry32& rng,
                              const std::string& name) {
  const auto n = static_cast<size_t>(shapeSize(shape));
  std::vector<float> out(n, 0.0f);
  const auto normals = [&](double stddev) {
    for (float& v : out) v = static_cast<float>(boxMuller(rng) * stddev);
  };
  if (const auto* r = std::get_if<init::Randn>(&spec))
    normals(r->scale);
  else if (const auto* k = std::get_if<init::Kaiming>(&spec)) {
    const double fanIn = shape.empty() ? static_cast<double>(n) : static_cast<double>(shape[0]);
    normals(k->gain / std::sqrt(fanIn));
  } else if (std::holds_alternative<init::Ones>(spec))
    std::fill(out.begin(), out.end(), 1.0f);
  else if (const auto* l = std::get_if<init::Literal>(&spec)) {
    if (l->data.size() != n) {
      throw TraceError("init.literal: data length " + std::to_string(l->data.size()) +
                       " doesn't match param '" + name + "' size " + std::to_string(n));
    }
    out = l->data;
  }
  return out;
}

Module::Module(Module& parent, const std::string& name) : path_(parent.childPath(name)) {
  parent.entries_.push_back({nullptr, this});
}

Tensor Module::param(const std::string& name, const Shape& shape, ParamOptions opts) {
  for (int64_t d : shape) {
    if (d <= 0)
      throw TraceError("param '" + childPath(name) + "': dims must be positive, got " +
                       showShape(shape));
  }
  if (std::string e = checkTensorShape(shape); !e.empty())
    throw TraceError("param '" + childPath(name) + "': " + e);
  auto decl = std::make_shared<ParamDecl>();
  decl->path = childPath(name);
  decl->shape = shape;
  decl->dtype = opts.dtype;
  decl->init = opts.init.value_or(init::randn());
  decl->decay = opts.decay.value_or(defaultDecay(decl->init));
  entries_.push_back({decl, nullptr});
  return Tensor(std::shared_ptr<const ParamDecl>(decl));
}

std::vector<std::shared_ptr<const ParamDecl>> Module::parameters() const {
  std::vector<std::shared_ptr<const ParamDecl>> out;
  for (const Entry& e : entries_) {
    if (e.param)
      out.push_back(e.param);
    else
      for (auto& p : e.child->parameters()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tg
