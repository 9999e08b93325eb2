// loadBundle / parseBundle: a graph bundle (tensorgrad/js/BUNDLE_FORMAT.md) read strictly. Every
// message starts with the file and the path of the field, so a bad bundle says where it is bad.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "tensorgrad/bundle.h"
#include "tensorgrad/json.h"
#include "tensorgrad/safetensors.h"

namespace tg {

namespace {

using Json = nlohmann::json;

// Reads one bundle; `fail` prefixes the file name.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw BundleError(source_ + ": " + where + ": " + message);
  }

  const Json& member(const Json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
    return *it;
  }
  const Json* optional(const Json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  void object(const Json& v, const std::string& where, const std::vector<std::string_view>& known) const {
    if (!v.is_object()) fail(where, "expected an object, got " + v.dump().substr(0, 60));
    for (const auto& [key, value] : v.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail(where, "unknown field '" + key + "'");
    }
  }
  std::string string(const Json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a string, got " + v.dump().substr(0, 60));
    return v.get<std::string>();
  }
  double number(const Json& v, const std::string& where) const {
    if (!v.is_number()) fail(where, "expected a number, got " + v.dump().substr(0, 60));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(where, "expected a finite number");
    return d;
  }
  int64_t integer(const Json& v, const std::string& where) const {
    const double d = number(v, where);
    if (d != std::floor(d) || std::abs(d) > 9.007199254740992e15)
      fail(where, "expected an integer, got " + v.dump());
    return static_cast<int64_t>(d);
  }
  bool boolean(const Json& v, const std::string& where) const {
    if (!v.is_boolean()) fail(where, "expected true or false, got " + v.dump().substr(0, 60));
    return v.get<bool>();
  }
  const Json& array(const Json& v, const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array, got " + v.dump().substr(0, 60));
    return v;
  }
  Shape shape(const Json& v, const std::string& where) const {
    Shape s;
    for (const Json& d : array(v, where)) s.push_back(integer(d, where));
    for (int64_t d : s) {
      if (d <= 0) fail(where, showShape(s) + " has a dim that is not positive");
    }
    if (std::string e = checkTensorShape(s); !e.empty()) fail(where, e);
    return s;
  }
  Dtype dtype(const Json& v, const std::string& where) const {
    if (v.is_string()) {
      if (auto d = dtypeFromName(v.get_ref<const std::string&>())) return *d;
    }
    fail(where, "expected \"f32\", \"i32\" or \"bool\", got " + v.dump().substr(0, 60));
  }

  std::vector<uint8_t> base64(const Json& v, const std::string& where) const {
    std::string error;
    auto bytes = decodeBase64(string(v, where), &error);
    if (!bytes) fail(where, error);
    return std::move(*bytes);
  }

  LR lr(const Json& v, const std::string& where) const {
    if (v.is_number()) return LR(number(v, where));
    const Json& kind = member(v, "kind", where);
    const std::string k = string(kind, where + ".kind");
    auto start = [&](const Json& o) -> std::optional<int64_t> {
      if (const Json* s = optional(o, "startStep")) return integer(*s, where + ".startStep");
      return std::nullopt;
    };
    auto num = [&](const char* key) { return number(member(v, key, where), where + "." + key); };
    auto count = [&](const char* key) { return integer(member(v, key, where), where + "." + key); };
    LR out = 0.0;
    if (k == "linear" || k == "cosineAnnealing") {
      object(v, where, {"kind", "peak", "final", "steps", "startStep"});
      if (k == "linear")
        out = lr::Linear{num("peak"), num("final"), count("steps"), start(v)};
      else
        out = lr::CosineAnnealing{num("peak"), num("final"), count("steps"), start(v)};
    } else if (k == "warmup") {
      object(v, where, {"kind", "peak", "steps", "after", "startStep"});
      out = lr::Warmup{num("peak"), count("steps"),
                       std::make_shared<const LR>(lr(member(v, "after", where), where + ".after")),
                       start(v)};
    } else if (k == "staircase") {
      object(v, where, {"kind", "peak", "every", "gamma", "startStep"});
      out = lr::Staircase{num("peak"), count("every"), num("gamma"), start(v)};
    } else if (k == "multiStep") {
      object(v, where, {"kind", "peak", "milestones", "gamma", "startStep"});
      std::vector<int64_t> milestones;
      for (const Json& m : array(member(v, "milestones", where), where + ".milestones"))
        milestones.push_back(integer(m, where + ".milestones"));
      out = lr::MultiStep{num("peak"), std::move(milestones), num("gamma"), start(v)};
    } else {
      fail(where + ".kind", "unknown lr schedule '" + k + "'");
    }
    try {
      validateLR(out, where);
    } catch (const std::invalid_argument& e) {
      throw BundleError(source_ + ": " + e.what());
    }
    return out;
  }

  OptimizerConfig optimizer(const Json& v, const std::string& where) const {
    object(v, where, {"kind", "lr", "beta1", "beta2", "eps", "weightDecay", "momentum", "nesterov",
                      "clipGradNorm", "normalizeGrads"});
    const std::string kind = string(member(v, "kind", where), where + ".kind");
    auto num = [&](const char* key, double fallback) {
      const Json* x = optional(v, key);
      return x ? number(*x, where + "." + key) : fallback;
    };
    // Clipping and normalization are ops in the graph already; record them only as read.
    std::optional<double> clip;
    if (const Json* c = optional(v, "clipGradNorm")) clip = number(*c, where + ".clipGradNorm");
    if (const Json* n = optional(v, "normalizeGrads"); n && !n->is_boolean() && *n != "filter")
      fail(where + ".normalizeGrads", "expected true, false or \"filter\", got " + n->dump());
    // A filter function cannot be read back; true and false can (formatBundle writes them again).
    const Json* normalize = optional(v, "normalizeGrads");
    const bool normalizeAll = normalize && normalize->is_boolean() && normalize->get<bool>();
    const LR rate = lr(member(v, "lr", where), where + ".lr");
    OptimizerConfig out;
    if (kind == "adam" || kind == "adamw") {
      Adam a;
      a.lr = rate;
      a.beta1 = num("beta1", 0.9);
      a.beta2 = num("beta2", 0.999);
      a.eps = num("eps", 1e-8);
      a.clipGradNorm = clip;
      a.normalizeGrads = normalizeAll;
      // Upstream decays whenever weightDecay > 0, whatever the kind says: an "adam" with decay
      // feeds the same per-step shrink input as an "adamw".
      const double decay = kind == "adamw" ? number(member(v, "weightDecay", where), where + ".weightDecay")
                                           : num("weightDecay", 0);
      if (kind == "adam" && decay == 0) {
        out = a;
      } else {
        AdamW w;
        static_cast<Adam&>(w) = a;
        w.weightDecay = decay;
        out = w;
      }
    } else if (kind == "sgd") {
      SGD s;
      s.lr = rate;
      s.momentum = num("momentum", 0);
      if (const Json* n = optional(v, "nesterov")) s.nesterov = boolean(*n, where + ".nesterov");
      s.weightDecay = num("weightDecay", 0);
      s.clipGradNorm = clip;
      s.normalizeGrads = normalizeAll;
      out = s;
    } else {
      fail(where + ".kind", "unknown optimizer '" + kind + "' (adam, adamw or sgd)");
    }
    try {
      validateOptimizer(out);
    } catch (const std::invalid_argument& e) {
      throw BundleError(source_ + ": " + where + ": " + e.what());
    }
    return out;
  }

  InputDecls inputs(const Json& v, const std::string& where) const {
    InputDecls out;
    const Json& list = array(v, where);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + "[" + std::to_string(i) + "]";
      object(list[i], w, {"name", "shape", "dtype"});
      const std::string name = string(member(list[i], "name", w), w + ".name");
      for (const auto& [n, d] : out) {
        if (n == name) fail(w + ".name", "input '" + name + "' is declared twice");
      }
      InputDecl d;
      d.shape = shape(member(list[i], "shape", w), w + ".shape");
      d.dtype = dtype(member(list[i], "dtype", w), w + ".dtype");
      if (d.dtype == Dtype::Bool) fail(w + ".dtype", "inputs are f32 or i32");
      out.emplace_back(name, std::move(d));
    }
    return out;
  }

  // One host array {dtype, shape, data}; `want` (when given) is the shape and dtype it must have.
  // Recorded captures: each name one of the graph's captures, with its shape and dtype.
  std::map<std::string, Array> captures(const Json& v, const std::string& where, const Graph& g) const {
    if (!v.is_object()) fail(where, "expected an object of captures by name");
    std::map<std::string, Array> out;
    for (const auto& [name, value] : v.items()) {
      const auto it = std::find_if(g.captures.begin(), g.captures.end(), [&](const auto& c) { return c.first == name; });
      if (it == g.captures.end()) fail(where, "'" + name + "' is not a capture of the graph");
      const TensorInfo& t = g.tensor(it->second);
      auto [shape, values] = tensor(value, where + "." + name);
      const Dtype want = t.dtype == Dtype::F32 ? Dtype::F32 : Dtype::I32;
      if (shape != t.shape || values.dtype() != want)
        fail(where + "." + name, "is " + showShape(shape) + " " + std::string(dtypeName(values.dtype())) +
                                     " but the graph's capture is " + showShape(t.shape) + " " + std::string(dtypeName(want)));
      out.emplace(name, std::move(values));
    }
    return out;
  }

  std::pair<Shape, Array> tensor(const Json& v, const std::string& where,
                                 const InputDecl* want = nullptr) const {
    object(v, where, {"dtype", "shape", "data"});
    const Dtype d = dtype(member(v, "dtype", where), where + ".dtype");
    if (d == Dtype::Bool) fail(where + ".dtype", "host arrays are f32 or i32");
    Shape s = shape(member(v, "shape", where), where + ".shape");
    if (want && (want->shape != s || want->dtype != d)) {
      fail(where, "is " + showShape(s) + " " + std::string(dtypeName(d)) + " but the input is declared " +
                      showShape(want->shape) + " " + std::string(dtypeName(want->dtype)));
    }
    const std::vector<uint8_t> bytes = base64(member(v, "data", where), where + ".data");
    const int64_t n = shapeSize(s);
    if (bytes.size() != static_cast<uint64_t>(n) * 4) {
      fail(where + ".data", "holds " + std::to_string(bytes.size()) + " bytes; " + showShape(s) + " " +
                                std::string(dtypeName(d)) + " needs " + std::to_string(n * 4));
    }
    if (d == Dtype::F32) {
      std::vector<float> values(static_cast<size_t>(n));
      std::memcpy(values.data(), bytes.data(), bytes.size());
      return {std::move(s), Array(std::move(values))};
    }
    std::vector<int32_t> values(static_cast<size_t>(n));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return {std::move(s), Array(std::move(values))};
  }

  // Feeds for `decls`: exactly the declared names, each of its declared shape and dtype.
  Feed feeds(const Json& v, const std::string& where, const InputDecls& decls) const {
    if (!v.is_object()) fail(where, "expected an object of input name → array");
    Feed out;
    for (const auto& [name, value] : v.items()) {
      auto it = std::find_if(decls.begin(), decls.end(), [&](const auto& d) { return d.first == name; });
      if (it == decls.end()) fail(where, "feeds an undeclared input '" + name + "'");
      out[name] = tensor(value, where + "." + name, &it->second).second;
    }
    for (const auto& [name, decl] : decls) {
      if (!out.count(name)) fail(where, "does not feed input '" + name + "'");
    }
    return out;
  }

  Graph graph(const Json& v, const std::string& where) const {
    try {
      return graphFromJson(v);
    } catch (const GraphJsonError& e) {
      fail(where, e.what());
    }
  }

  std::vector<UpstreamKernel> kernels(const Json& v, const std::string& where, const Graph& g) const {
    const Json& list = array(v, where);
    if (list.size() != g.ops.size()) {
      fail(where, "has " + std::to_string(list.size()) + " kernels for " +
                      std::to_string(g.ops.size()) + " ops (one per op, in op order)");
    }
    std::vector<UpstreamKernel> out;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + "[" + std::to_string(i) + "]";
      object(list[i], w, {"opIndex", "opKind", "wgsl", "bindings", "threads", "workgroupSize"});
      UpstreamKernel k;
      k.opIndex = static_cast<int>(integer(member(list[i], "opIndex", w), w + ".opIndex"));
      if (k.opIndex != static_cast<int>(i)) fail(w + ".opIndex", "is " + std::to_string(k.opIndex) + ", not " + std::to_string(i));
      k.kind = g.ops[i].kind;
      const std::string kind = string(member(list[i], "opKind", w), w + ".opKind");
      if (kind != opKindName(k.kind))
        fail(w + ".opKind", "is '" + kind + "' but ops[" + std::to_string(i) + "] is " + std::string(opKindName(k.kind)));
      k.wgsl = string(member(list[i], "wgsl", w), w + ".wgsl");
      for (const Json& b : array(member(list[i], "bindings", w), w + ".bindings"))
        k.bindings.push_back(static_cast<int>(integer(b, w + ".bindings")));
      k.threads = integer(member(list[i], "threads", w), w + ".threads");
      k.workgroupSize = static_cast<int>(integer(member(list[i], "workgroupSize", w), w + ".workgroupSize"));
      if (k.threads < 0 || k.workgroupSize < 1 || k.workgroupSize > 1024)
        fail(w, "threads " + std::to_string(k.threads) + " / workgroupSize " + std::to_string(k.workgroupSize) + " out of range");
      out.push_back(std::move(k));
    }
    return out;
  }

 private:
  std::string source_;
};

// The tensor_input ops of `g` must be the declared inputs (same shape and dtype) plus the inputs
// the runtime feeds itself (`extra`: the optimizer's, the PRNG seed).
void checkGraphInputs(const Reader& r, const std::string& where, const Graph& g,
                      const InputDecls& decls, const std::set<std::string>& extra) {
  std::set<std::string> seen;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (op.kind != OpKind::TensorInput) continue;
    const TensorInfo& t = g.tensor(op.out);
    const std::string at = where + ".graph.ops[" + std::to_string(i) + "] (tensor_input '" + op.attrs.name + "')";
    auto it = std::find_if(decls.begin(), decls.end(), [&](const auto& d) { return d.first == op.attrs.name; });
    if (it == decls.end()) {
      if (!extra.count(op.attrs.name)) r.fail(at, "is not a declared input of " + where + ".inputs");
      continue;
    }
    if (it->second.shape != t.shape || it->second.dtype != t.dtype) {
      r.fail(at, "is " + showShape(t.shape) + " " + std::string(dtypeName(t.dtype)) +
                     " but the input is declared " + showShape(it->second.shape) + " " +
                     std::string(dtypeName(it->second.dtype)));
    }
    seen.insert(op.attrs.name);
  }
  for (const auto& [name, d] : decls) {
    if (!seen.count(name)) r.fail(where + ".inputs", "input '" + name + "' is not in the graph");
  }
}

// name → shape of every param_input op.
std::map<std::string, Shape> graphParams(const Graph& g) {
  std::map<std::string, Shape> out;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::ParamInput) out[op.attrs.name] = g.tensor(op.out).shape;
  }
  return out;
}

}  // namespace

std::optional<std::vector<uint8_t>> decodeBase64(std::string_view text, std::string* error) {
  auto bad = [&](std::string message) -> std::optional<std::vector<uint8_t>> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  if (text.size() % 4 != 0)
    return bad("base64 length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t acc = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int d = c >= 'A' && c <= 'Z'   ? c - 'A'
              : c >= 'a' && c <= 'z' ? c - 'a' + 26
              : c >= '0' && c <= '9' ? c - '0' + 52
              : c == '+'             ? 62
              : c == '/'             ? 63
                                     : -1;
      if (c == '=' && i + 4 == text.size() && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        ++pad;
        d = 0;
      } else if (d < 0 || pad > 0) {
        return bad("bad base64 character at offset " + std::to_string(i + k));
      }
      acc = (acc << 6) | static_cast<uint32_t>(d);
    }
    out.push_back(static_cast<uint8_t>(acc >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(acc >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(acc));
  }
  return out;
}

float RecordedStep::loss() const {
  float f;
  std::memcpy(&f, &lossBits, 4);
  return f;
}

const BundleForward& Bundle::forward(const std::string& name) const {
  std::string known;
  for (const BundleForward& f : forwards) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw std::invalid_argument(source + ": no forward named '" + name + "' (the bundle has: " +
                              (known.empty() ? "none" : known) + ")");
}

Bundle parseBundle(std::string_view text, const std::string& source) {
  const Reader r(source);
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {  // a syntax error, or a number past double's range
    throw BundleError(source + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) r.fail("(top level)", "expected an object");
  if (j.value("format", Json()) != "tensorgrad-bundle")
    r.fail("format", "expected \"tensorgrad-bundle\": this is not a tensorgrad graph bundle");
  const Json& version = r.member(j, "version", "(top level)");
  if (!version.is_number_integer() || version.get<int64_t>() < 1 || version.get<int64_t>() > kBundleVersion) {
    r.fail("version", "version " + version.dump() + " is not supported (this build reads versions 1 to " +
                          std::to_string(kBundleVersion) + "); re-export it with the matching tgbundle.mjs");
  }
  r.object(j, "(top level)", {"format", "version", "tensorgrad", "adapter", "training", "forwards", "params", "steps"});
  Bundle b;
  b.source = source;
  b.version = version.get<int>();
  // Version 2 adds recorded captures to steps and forward runs.
  const bool withCaptures = b.version >= 2;
  using Fields = std::vector<std::string_view>;
  if (const Json* v = r.optional(j, "tensorgrad")) b.tensorgradVersion = r.string(*v, "tensorgrad");
  if (const Json* v = r.optional(j, "adapter")) b.adapter = r.string(*v, "adapter");

  // The training compile.
  const Json& t = r.member(j, "training", "(top level)");
  r.object(t, "training", {"inputs", "optimizer", "seed", "paramNames", "graph", "paramGrads", "writebacks", "kernels"});
  b.inputs = r.inputs(r.member(t, "inputs", "training"), "training.inputs");
  b.optimizer = r.optimizer(r.member(t, "optimizer", "training"), "training.optimizer");
  const int64_t seed = r.integer(r.member(t, "seed", "training"), "training.seed");
  if (seed < 0 || seed > 0xffffffffLL) r.fail("training.seed", "not a 32-bit unsigned seed");
  b.seed = static_cast<uint32_t>(seed);
  b.graph = r.graph(r.member(t, "graph", "training"), "training.graph");
  b.kernels = r.kernels(r.member(t, "kernels", "training"), "training.kernels", b.graph);
  if (b.graph.outputs.size() != 1 || !b.graph.tensor(b.graph.outputs[0]).shape.empty() ||
      b.graph.tensor(b.graph.outputs[0]).dtype != Dtype::F32) {
    r.fail("training.graph.outputs", "a training graph has one output, the f32 scalar loss");
  }
  const bool adam = !std::holds_alternative<SGD>(b.optimizer);
  std::set<std::string> runtimeInputs = {kPrngSeedInput, adam ? kAdamLrInput : kSgdLrInput};
  if (adam) runtimeInputs.insert(kAdamDecayShrinkInput);
  checkGraphInputs(r, "training", b.graph, b.inputs, runtimeInputs);

  // Parameters: names, initial values and the graph's param_input ops agree.
  const std::map<std::string, Shape> params = graphParams(b.graph);
  for (const Json& n : r.array(r.member(t, "paramNames", "training"), "training.paramNames")) {
    b.paramNames.push_back(r.string(n, "training.paramNames"));
    if (!params.count(b.paramNames.back()))
      r.fail("training.paramNames", "'" + b.paramNames.back() + "' has no param_input op in the graph");
  }
  if (std::set<std::string>(b.paramNames.begin(), b.paramNames.end()).size() != params.size() ||
      b.paramNames.size() != params.size()) {
    r.fail("training.paramNames", "must list each of the graph's " + std::to_string(params.size()) +
                                      " param_input names once");
  }
  const std::vector<uint8_t> st = r.base64(r.member(j, "params", "(top level)"), "params");
  SafetensorsData data;
  try {
    data = loadSafetensors(std::span<const uint8_t>(st));
  } catch (const std::invalid_argument& e) {
    r.fail("params", std::string("bad safetensors: ") + e.what());
  }
  for (const auto& [name, shape] : params) {
    auto it = data.tensors.find(name);
    if (it == data.tensors.end()) r.fail("params", "missing parameter '" + name + "' (F32 " + showShape(shape) + ")");
    if (data.shapes.at(name) != shape) {
      r.fail("params", "parameter '" + name + "' is " + showShape(data.shapes.at(name)) +
                           " but the graph has " + showShape(shape));
    }
    for (size_t i = 0; i < it->second.size(); ++i) {
      if (!std::isfinite(it->second[i]))
        r.fail("params", "parameter '" + name + "' holds a non-finite value at index " + std::to_string(i));
    }
    b.params[name] = it->second;
  }
  for (const auto& [name, shape] : data.shapes) {
    if (!params.count(name)) r.fail("params", "tensor '" + name + "' is not a parameter of the graph");
  }

  // Gradients and writebacks.
  const Json& grads = r.member(t, "paramGrads", "training");
  r.object(grads, "training.paramGrads", std::vector<std::string_view>(b.paramNames.begin(), b.paramNames.end()));
  for (const std::string& name : b.paramNames) {
    const std::string w = "training.paramGrads." + name;
    const int64_t id = r.integer(r.member(grads, name.c_str(), "training.paramGrads"), w);
    if (id < 0 || id >= static_cast<int64_t>(b.graph.tensors.size())) r.fail(w, "tensor " + std::to_string(id) + " does not exist");
    if (b.graph.tensor(static_cast<int>(id)).shape != params.at(name))
      r.fail(w, "tensor " + std::to_string(id) + " is not the shape of '" + name + "'");
    b.paramGrads.emplace_back(name, static_cast<int>(id));
  }
  std::map<std::string, Shape> states;
  for (const Op& op : b.graph.ops) {
    if (op.kind == OpKind::StateInput) states[op.attrs.name] = b.graph.tensor(op.out).shape;
  }
  std::set<std::string> written;
  const Json& wbs = r.array(r.member(t, "writebacks", "training"), "training.writebacks");
  for (size_t i = 0; i < wbs.size(); ++i) {
    const std::string w = "training.writebacks[" + std::to_string(i) + "]";
    r.object(wbs[i], w, {"source", "destName", "destKind"});
    WritebackDecl d;
    const int64_t src = r.integer(r.member(wbs[i], "source", w), w + ".source");
    if (src < 0 || src >= static_cast<int64_t>(b.graph.tensors.size())) r.fail(w + ".source", "tensor " + std::to_string(src) + " does not exist");
    d.source = static_cast<int>(src);
    d.destName = r.string(r.member(wbs[i], "destName", w), w + ".destName");
    const std::string kind = r.string(r.member(wbs[i], "destKind", w), w + ".destKind");
    if (kind != "param" && kind != "state") r.fail(w + ".destKind", "expected \"param\" or \"state\", got '" + kind + "'");
    d.destKind = kind == "param" ? WritebackDecl::Kind::Param : WritebackDecl::Kind::State;
    const auto& pool = d.destKind == WritebackDecl::Kind::Param ? params : states;
    auto dest = pool.find(d.destName);
    if (dest == pool.end()) r.fail(w + ".destName", "no " + kind + " named '" + d.destName + "' in the graph");
    if (dest->second != b.graph.tensor(d.source).shape || b.graph.tensor(d.source).dtype != Dtype::F32)
      r.fail(w, "source tensor " + std::to_string(src) + " does not match " + kind + " '" + d.destName + "'");
    if (!written.insert(kind + ":" + d.destName).second) r.fail(w, kind + " '" + d.destName + "' is written back twice");
    b.writebacks.push_back(std::move(d));
  }

  // Attached forwards: their params are the training's.
  if (const Json* fw = r.optional(j, "forwards")) {
    for (size_t i = 0; i < r.array(*fw, "forwards").size(); ++i) {
      const Json& f = (*fw)[i];
      std::string w = "forwards[" + std::to_string(i) + "]";
      r.object(f, w, {"name", "inputs", "output", "graph", "kernels", "runs"});
      BundleForward out;
      out.name = r.string(r.member(f, "name", w), w + ".name");
      for (const BundleForward& other : b.forwards) {
        if (other.name == out.name) r.fail(w + ".name", "forward '" + out.name + "' appears twice");
      }
      w += " ('" + out.name + "')";
      out.inputs = r.inputs(r.member(f, "inputs", w), w + ".inputs");
      out.output = r.dtype(r.member(f, "output", w), w + ".output");
      if (out.output == Dtype::Bool) r.fail(w + ".output", "a forward's output is f32 or i32");
      out.graph = r.graph(r.member(f, "graph", w), w + ".graph");
      out.kernels = r.kernels(r.member(f, "kernels", w), w + ".kernels", out.graph);
      checkGraphInputs(r, w, out.graph, out.inputs, {std::string(kPrngSeedInput)});
      if (out.graph.outputs.size() != 1) r.fail(w + ".graph.outputs", "a forward graph has one output");
      const TensorInfo& result = out.graph.tensor(out.graph.outputs[0]);
      const bool fits = result.dtype == out.output || (out.output == Dtype::I32 && result.dtype == Dtype::Bool);
      if (!fits) r.fail(w + ".output", "is " + std::string(dtypeName(out.output)) + " but the graph's output is " + std::string(dtypeName(result.dtype)));
      for (const auto& [name, shape] : graphParams(out.graph)) {
        if (!params.count(name) || params.at(name) != shape)
          r.fail(w + ".graph", "parameter '" + name + "' " + showShape(shape) + " is not a parameter of the training graph");
      }
      if (const Json* runs = r.optional(f, "runs")) {
        for (size_t k = 0; k < r.array(*runs, w + ".runs").size(); ++k) {
          const std::string rw = w + ".runs[" + std::to_string(k) + "]";
          r.object((*runs)[k], rw, withCaptures ? Fields{"afterStep", "feeds", "output", "captures"}
                                                : Fields{"afterStep", "feeds", "output"});
          RecordedRun run;
          run.afterStep = r.integer(r.member((*runs)[k], "afterStep", rw), rw + ".afterStep");
          run.feeds = r.feeds(r.member((*runs)[k], "feeds", rw), rw + ".feeds", out.inputs);
          auto [shape, values] = r.tensor(r.member((*runs)[k], "output", rw), rw + ".output");
          const InputDecl want{result.shape, out.output};
          if (shape != want.shape || values.dtype() != want.dtype)
            r.fail(rw + ".output", "is " + showShape(shape) + " but the graph's output is " + showShape(result.shape));
          run.outputShape = std::move(shape);
          run.output = std::move(values);
          if (const Json* c = withCaptures ? r.optional((*runs)[k], "captures") : nullptr)
            run.captures = r.captures(*c, rw + ".captures", out.graph);
          out.runs.push_back(std::move(run));
        }
      }
      b.forwards.push_back(std::move(out));
    }
  }

  // Recorded steps.
  if (const Json* steps = r.optional(j, "steps")) {
    for (size_t i = 0; i < r.array(*steps, "steps").size(); ++i) {
      const Json& s = (*steps)[i];
      const std::string w = "steps[" + std::to_string(i) + "]";
      r.object(s, w, withCaptures ? Fields{"feeds", "setLR", "loss", "captures"} : Fields{"feeds", "setLR", "loss"});
      RecordedStep step;
      step.feeds = r.feeds(r.member(s, "feeds", w), w + ".feeds", b.inputs);
      if (const Json* lr = r.optional(s, "setLR")) step.setLR = r.lr(*lr, w + ".setLR");
      const std::string bits = r.string(r.member(s, "loss", w), w + ".loss");
      if (bits.size() != 8 || bits.find_first_not_of("0123456789abcdef") != std::string::npos)
        r.fail(w + ".loss", "expected f32 bits as 8 lowercase hex digits, got '" + bits + "'");
      step.lossBits = static_cast<uint32_t>(std::stoul(bits, nullptr, 16));
      if (const Json* c = withCaptures ? r.optional(s, "captures") : nullptr)
        step.captures = r.captures(*c, w + ".captures", b.graph);
      b.steps.push_back(std::move(step));
    }
  }
  for (const BundleForward& f : b.forwards) {
    for (const RecordedRun& run : f.runs) {
      if (run.afterStep < 0 || run.afterStep > static_cast<int64_t>(b.steps.size()))
        r.fail("forwards ('" + f.name + "').runs", "afterStep " + std::to_string(run.afterStep) + " is past the recorded steps");
    }
  }
  return b;
}

Bundle loadBundle(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw BundleError(file.string() + ": no such file");
  if (!std::filesystem::is_regular_file(status)) throw BundleError(file.string() + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) throw BundleError(file.string() + ": read error");
  return parseBundle(text, file.string());
}

}  // namespace tg
