// makeBundle / formatBundle / saveBundle: a C++ compile written as a graph bundle
// (tensorgrad/js/BUNDLE_FORMAT.md), field for field the inverse of parseBundle (bundle.cpp), so
// tg-inspect and tgparity read a C++ user's model as they read a browser's.
#include "bundle_writer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "tensorgrad/bundle.h"
#include "tensorgrad/json.h"

namespace tg {

namespace detail {

std::string siteFunction(const CallSite& site) {
  if (!site.frames.empty()) {
    // "at lossFn (file:///app/train.mjs:12:5)" → "lossFn"; "at file:///app/x.mjs:3:1" → "".
    std::string_view f = site.frames.front();
    if (f.starts_with("at ")) f.remove_prefix(3);
    const size_t open = f.find(" (");
    return open == std::string_view::npos ? std::string() : std::string(f.substr(0, open));
  }
  const std::string_view f = site.location.function_name();
  if (f.empty()) return "";
  // "tg::Tensor tg_models::mlpLoss(const MlpSin&, const tg::Inputs&)" → "tg_models::mlpLoss":
  // the name ends at its parameter list and starts after the return type (the last space
  // outside template brackets).
  const std::string_view head = f.substr(0, f.find('('));
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++depth;
    if (head[i] == '>') --depth;
    if (head[i] == ' ' && depth == 0) start = i + 1;
  }
  std::string name(head.substr(start));
  if (f.find("<lambda") != std::string_view::npos) name += ".<lambda>";
  return name;
}

std::string siteFrame(const CallSite& site) {
  const std::string where = std::string(site.location.file_name()) + ":" +
                            std::to_string(site.location.line()) + ":" +
                            std::to_string(site.location.column());
  const std::string function = siteFunction(site);
  return function.empty() ? "at " + where : "at " + function + " (" + where + ")";
}

}  // namespace detail

namespace {

using Json = nlohmann::json;

bool isRuntimeInput(const std::string& name) {
  return name == kPrngSeedInput || name == kAdamLrInput || name == kSgdLrInput ||
         name == kAdamDecayShrinkInput;
}

// The inputs a caller feeds: the graph's tensor_inputs in op (= declaration) order, without the
// ones the runtime feeds itself.
InputDecls graphInputs(const Graph& g) {
  InputDecls out;
  for (const Op& op : g.ops) {
    if (op.kind != OpKind::TensorInput || isRuntimeInput(op.attrs.name)) continue;
    const TensorInfo& t = g.tensor(op.out);
    out.emplace_back(op.attrs.name, InputDecl{t.shape, t.dtype});
  }
  return out;
}

std::map<std::string, Shape> graphParams(const Graph& g) {
  std::map<std::string, Shape> out;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::ParamInput) out[op.attrs.name] = g.tensor(op.out).shape;
  }
  return out;
}

// The graph a bundle holds: as traced, before the fast set's rewrites.
const Graph& tracedGraph(const CompiledIR& ir) {
  return ir.traced.ops.empty() ? ir.graph : ir.traced;
}

// The kernels standing in for upstream's: the default set (upstream's arithmetic) under the
// pooled plan (upstream's bindings).
std::vector<UpstreamKernel> upstreamKernels(const CompiledIR& ir) {
  CompiledIR upstream;
  upstream.graph = tracedGraph(ir);
  upstream.paramGrads = ir.paramGrads;
  upstream.optimizer = ir.optimizer;
  upstream.params = ir.params;
  detail::planAndEmit(upstream, /*poolBuffers=*/true, EmitOptions{});
  std::vector<UpstreamKernel> out;
  for (const KernelSpec& k : upstream.kernels)
    out.push_back({k.opIndex, k.kind, k.wgsl, k.bindings, k.threads, k.workgroupSize});
  return out;
}

// ---- JSON ----

Json optionalString(const std::optional<std::string>& s) {
  return s ? Json(*s) : Json(nullptr);
}

}  // namespace

// graphToJson plus what a bundle's graph adds: call sites, and non-finite attributes as the
// strings graphFromJson reads (JSON has no literal for them).
Json detail::bundleGraphJson(const Graph& g) {
  Json j = graphToJson(g);
  for (Json& op : j["ops"]) {
    for (auto& field : op.items()) {
      Json& v = field.value();
      if (!v.is_number_float() || std::isfinite(v.get<double>())) continue;
      const double d = v.get<double>();
      v = std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }
  }
  Json& tensors = j["tensors"];
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const std::optional<CallSite>& site = g.tensors[i].site;
    if (!site) {
      tensors[i]["site"] = nullptr;
      continue;
    }
    Json frames = Json::array();
    if (!site->frames.empty()) {
      for (const std::string& f : site->frames) frames.push_back(f);
    } else if (*site->location.file_name() != '\0') {
      frames.push_back(detail::siteFrame(*site));
    }
    tensors[i]["site"] = {{"opName", site->opName}, {"frames", std::move(frames)}};
  }
  return j;
}

namespace {

Json graphJson(const Graph& g) {
  return detail::bundleGraphJson(g);
}

Json lrJson(const LR& lr) {
  auto withStart = [](Json j, const std::optional<int64_t>& start) {
    if (start) j["startStep"] = *start;
    return j;
  };
  return std::visit(
      [&](const auto& s) -> Json {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, double>) {
          return s;
        } else if constexpr (std::is_same_v<T, lr::Linear> ||
                             std::is_same_v<T, lr::CosineAnnealing>) {
          return withStart({{"kind", std::is_same_v<T, lr::Linear> ? "linear" : "cosineAnnealing"},
                            {"peak", s.peak},
                            {"final", s.final},
                            {"steps", s.steps}},
                           s.startStep);
        } else if constexpr (std::is_same_v<T, lr::Warmup>) {
          if (!s.after) throw BundleError("a warmup lr schedule has no 'after' schedule");
          return withStart({{"kind", "warmup"},
                            {"peak", s.peak},
                            {"steps", s.steps},
                            {"after", lrJson(*s.after)}},
                           s.startStep);
        } else if constexpr (std::is_same_v<T, lr::Staircase>) {
          return withStart(
              {{"kind", "staircase"}, {"peak", s.peak}, {"every", s.every}, {"gamma", s.gamma}},
              s.startStep);
        } else {
          return withStart({{"kind", "multiStep"},
                            {"peak", s.peak},
                            {"milestones", s.milestones},
                            {"gamma", s.gamma}},
                           s.startStep);
        }
      },
      lr.schedule);
}

Json optimizerJson(const OptimizerConfig& config) {
  Json j;
  const GradTransforms* common = nullptr;
  if (const auto* w = std::get_if<AdamW>(&config)) {
    j = {{"kind", "adamw"},   {"lr", lrJson(w->lr)}, {"beta1", w->beta1},
         {"beta2", w->beta2}, {"eps", w->eps},       {"weightDecay", w->weightDecay}};
    common = w;
  } else if (const auto* a = std::get_if<Adam>(&config)) {
    j = {{"kind", "adam"},
         {"lr", lrJson(a->lr)},
         {"beta1", a->beta1},
         {"beta2", a->beta2},
         {"eps", a->eps}};
    common = a;
  } else {
    const SGD& s = std::get<SGD>(config);
    j = {{"kind", "sgd"},
         {"lr", lrJson(s.lr)},
         {"momentum", s.momentum},
         {"nesterov", s.nesterov},
         {"weightDecay", s.weightDecay}};
    common = &s;
  }
  j["clipGradNorm"] = common->clipGradNorm ? Json(*common->clipGradNorm) : Json(nullptr);
  // A filter function's effect is in the graph already; the format names only that there was one.
  const bool* flag = std::get_if<bool>(&common->normalizeGrads);
  j["normalizeGrads"] = flag ? Json(*flag) : Json("filter");
  return j;
}

Json inputsJson(const InputDecls& inputs) {
  Json out = Json::array();
  for (const auto& [name, d] : inputs)
    out.push_back({{"name", name}, {"shape", d.shape}, {"dtype", dtypeName(d.dtype)}});
  return out;
}

Json arrayJson(const Array& a, const Shape& shape, const std::string& where) {
  if (a.size() != static_cast<size_t>(shapeSize(shape)))
    throw BundleError(where + ": holds " + std::to_string(a.size()) + " values; " +
                      showShape(shape) + " needs " + std::to_string(shapeSize(shape)));
  const auto* bytes = static_cast<const uint8_t*>(a.data());
  return {{"dtype", dtypeName(a.dtype())},
          {"shape", shape},
          {"data", encodeBase64(std::span<const uint8_t>(bytes, a.size() * 4))}};
}

Json feedsJson(const Feed& feeds, const InputDecls& decls, const std::string& where) {
  Json out = Json::object();
  for (const auto& [name, values] : feeds) {
    auto it =
        std::find_if(decls.begin(), decls.end(), [&](const auto& d) { return d.first == name; });
    if (it == decls.end()) throw BundleError(where + ": feeds an undeclared input '" + name + "'");
    out[name] = arrayJson(values, it->second.shape, where + "." + name);
  }
  return out;
}

Json capturesJson(const std::map<std::string, Array>& captures, const Graph& g,
                  const std::string& where) {
  Json out = Json::object();
  for (const auto& [name, values] : captures) {
    auto it = std::find_if(g.captures.begin(), g.captures.end(),
                           [&](const auto& c) { return c.first == name; });
    if (it == g.captures.end())
      throw BundleError(where + ": '" + name + "' is not a capture of the graph");
    out[name] = arrayJson(values, g.tensor(it->second).shape, where + "." + name);
  }
  return out;
}

Json kernelsJson(const std::vector<UpstreamKernel>& kernels) {
  Json out = Json::array();
  for (const UpstreamKernel& k : kernels) {
    out.push_back({{"opIndex", k.opIndex},
                   {"opKind", opKindName(k.kind)},
                   {"wgsl", k.wgsl},
                   {"bindings", k.bindings},
                   {"threads", k.threads},
                   {"workgroupSize", k.workgroupSize}});
  }
  return out;
}

// A safetensors file of F32 tensors: the 8-byte little-endian header length, the JSON header
// (padded with spaces to 8 bytes, as the format suggests), then the data in header order.
std::vector<uint8_t> safetensors(const ParamMap& params,
                                 const std::map<std::string, Shape>& shapes) {
  Json header = Json::object();
  int64_t offset = 0;
  for (const auto& [name, values] : params) {
    auto shape = shapes.find(name);
    if (shape == shapes.end())
      throw BundleError("params: '" + name + "' is not a parameter of the graph");
    if (values.size() != static_cast<size_t>(shapeSize(shape->second)))
      throw BundleError("params: '" + name + "' holds " + std::to_string(values.size()) +
                        " values; " + showShape(shape->second) + " needs " +
                        std::to_string(shapeSize(shape->second)));
    const int64_t bytes = static_cast<int64_t>(values.size()) * 4;
    header[name] = {
        {"dtype", "F32"}, {"shape", shape->second}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8 + text.size() + static_cast<size_t>(offset));
  const uint64_t length = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(length >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  size_t at = 8 + text.size();
  for (const auto& [name, values] : params) {  // std::map order: the header's order
    std::memcpy(out.data() + at, values.data(), values.size() * 4);
    at += values.size() * 4;
  }
  return out;
}

std::string hex8(uint32_t bits) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", bits);
  return text;
}

}  // namespace

std::string encodeBase64(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t acc = static_cast<uint32_t>(bytes[i]) << 16;
    if (n > 1) acc |= static_cast<uint32_t>(bytes[i + 1]) << 8;
    if (n > 2) acc |= bytes[i + 2];
    out.push_back(kDigits[(acc >> 18) & 63]);
    out.push_back(kDigits[(acc >> 12) & 63]);
    out.push_back(n > 1 ? kDigits[(acc >> 6) & 63] : '=');
    out.push_back(n > 2 ? kDigits[acc & 63] : '=');
  }
  return out;
}

Bundle makeBundle(const CompiledIR& ir) {
  if (!ir.optimizerConfig) {
    throw BundleError(
        "makeBundle: this is a forward compile (it has no optimizer); a bundle holds a training, "
        "and a forward goes into one with makeBundleForward");
  }
  Bundle b;
  b.source = "makeBundle";
  b.version = tracedGraph(ir).captures.empty() ? 1 : 2;
  b.inputs = graphInputs(tracedGraph(ir));
  b.optimizer = *ir.optimizerConfig;
  b.seed = ir.seed;
  b.graph = tracedGraph(ir);
  b.paramGrads = ir.paramGrads;
  b.writebacks = ir.optimizer.writebacks;
  const std::map<std::string, Shape> inGraph = graphParams(tracedGraph(ir));
  for (const auto& p : ir.params) {
    if (!inGraph.count(p->path)) continue;
    if (p->dtype != Dtype::F32) {
      throw BundleError("makeBundle: parameter '" + p->path + "' is " +
                        std::string(dtypeName(p->dtype)) + "; a bundle's parameters are f32");
    }
    b.paramNames.push_back(p->path);
  }
  for (auto& [name, values] : initialParams(ir, ir.seed)) {
    if (inGraph.count(name)) b.params[name] = std::move(values);
  }
  b.kernels = upstreamKernels(ir);
  return b;
}

BundleForward makeBundleForward(std::string name, const CompiledIR& ir) {
  if (ir.optimizerConfig)
    throw BundleError("makeBundleForward('" + name +
                      "'): this is a training compile, not a forward");
  BundleForward f;
  f.name = std::move(name);
  f.inputs = graphInputs(tracedGraph(ir));
  const Dtype out = tracedGraph(ir).tensor(ir.output).dtype;
  f.output = out == Dtype::Bool ? Dtype::I32 : out;
  f.graph = tracedGraph(ir);
  f.kernels = upstreamKernels(ir);
  return f;
}

RecordedStep recordStep(Feed feeds, const StepResult& result, std::optional<LR> setLR) {
  if (result.kind != ResultKind::Completed) {
    throw std::invalid_argument("recordStep: the step " + std::string(resultKindName(result.kind)) +
                                (result.error.empty() ? "" : ": " + result.error) +
                                "; a bundle records completed steps");
  }
  RecordedStep s;
  s.feeds = std::move(feeds);
  s.setLR = std::move(setLR);
  // The browser's recorder writes any NaN as JavaScript's one NaN.
  std::memcpy(&s.lossBits, &result.loss, 4);
  if (std::isnan(result.loss)) s.lossBits = 0x7fc00000u;
  for (const std::string& name : result.captures.names())
    s.captures[name] = result.captures.get(name);
  return s;
}

RecordedRun recordRun(const BundleForward& forward, int64_t afterStep, Feed feeds,
                      const RunResult& result) {
  if (result.kind != ResultKind::Completed) {
    throw std::invalid_argument(
        "recordRun('" + forward.name + "'): the run " + std::string(resultKindName(result.kind)) +
        (result.error.empty() ? "" : ": " + result.error) + "; a bundle records completed runs");
  }
  RecordedRun r;
  r.afterStep = afterStep;
  r.feeds = std::move(feeds);
  r.outputShape = forward.graph.tensor(forward.graph.outputs.at(0)).shape;
  r.output = result.output;
  for (const std::string& name : result.captures.names())
    r.captures[name] = result.captures.get(name);
  return r;
}

std::string formatBundle(const Bundle& b) {
  bool recordsCaptures = false;
  for (const RecordedStep& s : b.steps) recordsCaptures |= !s.captures.empty();
  for (const BundleForward& f : b.forwards)
    for (const RecordedRun& r : f.runs) recordsCaptures |= !r.captures.empty();
  const int version = recordsCaptures ? std::max(b.version, 2) : b.version;

  Json grads = Json::object();
  for (const auto& [name, id] : b.paramGrads) grads[name] = id;
  Json writebacks = Json::array();
  for (const WritebackDecl& w : b.writebacks) {
    writebacks.push_back(
        {{"source", w.source},
         {"destName", w.destName},
         {"destKind", w.destKind == WritebackDecl::Kind::Param ? "param" : "state"}});
  }
  Json training = {{"inputs", inputsJson(b.inputs)},
                   {"optimizer", optimizerJson(b.optimizer)},
                   {"seed", b.seed},
                   {"paramNames", b.paramNames},
                   {"graph", graphJson(b.graph)},
                   {"paramGrads", grads},
                   {"writebacks", writebacks},
                   {"kernels", kernelsJson(b.kernels)}};

  Json forwards = Json::array();
  for (const BundleForward& f : b.forwards) {
    const std::string w = "forwards ('" + f.name + "')";
    Json runs = Json::array();
    for (size_t i = 0; i < f.runs.size(); ++i) {
      const RecordedRun& r = f.runs[i];
      const std::string rw = w + ".runs[" + std::to_string(i) + "]";
      Json run = {{"afterStep", r.afterStep},
                  {"feeds", feedsJson(r.feeds, f.inputs, rw + ".feeds")},
                  {"output", arrayJson(r.output, r.outputShape, rw + ".output")}};
      if (version >= 2 && !r.captures.empty())
        run["captures"] = capturesJson(r.captures, f.graph, rw + ".captures");
      runs.push_back(std::move(run));
    }
    forwards.push_back({{"name", f.name},
                        {"inputs", inputsJson(f.inputs)},
                        {"output", dtypeName(f.output)},
                        {"graph", graphJson(f.graph)},
                        {"kernels", kernelsJson(f.kernels)},
                        {"runs", runs}});
  }

  Json steps = Json::array();
  for (size_t i = 0; i < b.steps.size(); ++i) {
    const RecordedStep& s = b.steps[i];
    const std::string w = "steps[" + std::to_string(i) + "]";
    Json step = {{"feeds", feedsJson(s.feeds, b.inputs, w + ".feeds")},
                 {"setLR", s.setLR ? lrJson(*s.setLR) : Json(nullptr)},
                 {"loss", hex8(s.lossBits)}};
    if (version >= 2 && !s.captures.empty())
      step["captures"] = capturesJson(s.captures, b.graph, w + ".captures");
    steps.push_back(std::move(step));
  }

  const std::vector<uint8_t> params = safetensors(b.params, graphParams(b.graph));
  Json j = {{"format", "tensorgrad-bundle"},
            {"version", version},
            {"tensorgrad", optionalString(b.tensorgradVersion)},
            {"adapter", optionalString(b.adapter)},
            {"training", std::move(training)},
            {"forwards", std::move(forwards)},
            {"params", encodeBase64(params)},
            {"steps", std::move(steps)}};
  // Paths and function names in call sites are not always UTF-8; JSON text must be.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

void saveBundle(const Bundle& b, const std::filesystem::path& file) {
  std::string text;
  try {
    text = formatBundle(b);
  } catch (const BundleError& e) {
    throw BundleError(file.string() + ": not written: " + e.what());
  }
  try {
    parseBundle(text, file.string());
  } catch (const BundleError& e) {
    throw BundleError(std::string("not written, it would not read back: ") + e.what());
  }
  // Written beside and renamed over, so a reader never sees half a bundle.
  std::filesystem::path partial = file;
  partial += ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) throw BundleError(file.string() + ": cannot write (" + std::strerror(errno) + ")");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw BundleError(file.string() + ": write failed (" + std::strerror(errno) + ")");
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, file, ec);
  if (ec) {
    std::filesystem::remove(partial, ec);
    throw BundleError(file.string() + ": cannot write (" + ec.message() + ")");
  }
}

}  // namespace tg
