#include "tensorgrad/json.h"

#include <cmath>
#include <limits>

#include "../ops/op_registry.h"

namespace tg {
namespace {

nlohmann::json attrValue(std::string_view field, const OpAttrs& a) {
  if (field == "name") return a.name;
  if (field == "initValue") return a.initValue;
  if (field == "scalar") return a.scalar;
  if (field == "p") return a.p;
  if (field == "salt") return a.salt;
  if (field == "shape" || field == "newShape" || field == "targetShape" || field == "outShape")
    return a.shape;
  if (field == "perm") return a.perm;
  if (field == "axis") return a.axis;
  if (field == "start") return a.start;
  if (field == "end") return a.end;
  if (field == "depth") return a.depth;
  if (field == "n") return a.n;
  if (field == "dtype") return std::string(dtypeName(a.dtype));
  if (field == "value") return a.value;
  if (field == "fillValue") return a.fillValue;
  if (field == "beta1" || field == "beta2") return a.beta;
  if (field == "eps") return a.eps;
  if (field == "decayShrink") return a.decayShrink;
  if (field == "strideH") return a.strideH;
  if (field == "strideW") return a.strideW;
  if (field == "padH") return a.padH;
  if (field == "padW") return a.padW;
  if (field == "groups") return a.groups;
  if (field == "kH") return a.kH;
  if (field == "kW") return a.kW;
  if (field == "inH") return a.inH;
  if (field == "inW") return a.inW;
  throw std::logic_error("graphToJson: unknown attribute field '" + std::string(field) + "'");
}

}  // namespace

nlohmann::json graphToJson(const Graph& graph) {
  nlohmann::json ops = nlohmann::json::array();
  for (const Op& op : graph.ops) {
    const detail::OpDef& def = detail::opDef(op.kind);
    nlohmann::json j = {{"kind", def.name}, {"out", op.out}};
    if (def.variadic) {
      j[std::string(def.inputNames[0])] = op.inputs;
    } else {
      for (size_t i = 0; i < def.inputNames.size(); ++i) {
        const std::string field(def.inputNames[i]);
        if (i < op.inputs.size())
          j[field] = op.inputs[i];
        else
          j[field] = nullptr;  // optional input absent (adam_update_p's decayShrinkTensor)
      }
    }
    for (std::string_view field : def.attrNames) j[std::string(field)] = attrValue(field, op.attrs);
    ops.push_back(std::move(j));
  }
  nlohmann::json tensors = nlohmann::json::array();
  for (const TensorInfo& t : graph.tensors) {
    tensors.push_back({{"id", t.id},
                       {"shape", t.shape},
                       {"dtype", dtypeName(t.dtype)},
                       {"source", t.source ? nlohmann::json(*t.source) : nlohmann::json(nullptr)}});
  }
  nlohmann::json captures = nlohmann::json::object();
  for (const auto& [name, id] : graph.captures) captures[name] = id;
  return {{"ops", ops}, {"tensors", tensors}, {"outputs", graph.outputs}, {"captures", captures}};
}

nlohmann::json planToJson(const BufferPlan& plan) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferSpec& b : plan.buffers) {
    nlohmann::json j = {
        {"id", b.id},
        {"byteSize", b.byteSize},
        {"dtype", dtypeName(b.dtype)},
        {"shape", b.shape},
        {"kind", bufferKindName(b.kind)},
        {"name", b.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.name)}};
    if (b.kind == BufferSpec::Kind::State) j["initValue"] = b.initValue;
    if (b.parent >= 0) j["view"] = {{"parent", b.parent}, {"offset", b.offset}};
    buffers.push_back(std::move(j));
  }
  nlohmann::json writebacks = nlohmann::json::array();
  for (const Writeback& w : plan.writebacks)
    writebacks.push_back({{"source", w.source}, {"dest", w.dest}, {"bytes", w.bytes}});
  nlohmann::json j = {{"buffers", buffers},
                      {"tensorToBuffer", plan.tensorToBuffer},
                      {"writebacks", writebacks},
                      {"totalBytes", plan.totalBytes()}};
  for (const InPlaceUpdate& u : plan.inPlace) j["inPlace"].push_back({{"tensor", u.tensor}, {"buffer", u.buffer}});
  return j;
}

}  // namespace tg

namespace tg {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw GraphJsonError(where + ": " + message);
}

int64_t integer(const nlohmann::json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::abs(d) < 9.007199254740992e15) return static_cast<int64_t>(d);
  }
  fail(where, "expected an integer, got " + v.dump());
}

double number(const nlohmann::json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  if (v.is_null()) {
    fail(where, "expected a number, got null (JSON.stringify writes a non-finite number as null: "
                "write it as \"Infinity\", \"-Infinity\" or \"NaN\")");
  }
  fail(where, "expected a number, got " + v.dump());
}

std::vector<int64_t> integers(const nlohmann::json& v, const std::string& where) {
  if (!v.is_array()) fail(where, "expected an array of integers, got " + v.dump());
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(integer(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

Dtype dtypeOf(const nlohmann::json& v, const std::string& where) {
  if (v.is_string()) {
    if (auto d = dtypeFromName(v.get_ref<const std::string&>())) return *d;
  }
  fail(where, "expected a dtype (\"f32\", \"i32\" or \"bool\"), got " + v.dump());
}

void setAttr(std::string_view field, const nlohmann::json& v, OpAttrs& a, const std::string& where) {
  if (field == "name") {
    if (!v.is_string()) fail(where, "expected a string, got " + v.dump());
    a.name = v.get<std::string>();
  } else if (field == "initValue") {
    a.initValue = number(v, where);
  } else if (field == "scalar") {
    a.scalar = number(v, where);
  } else if (field == "p") {
    a.p = number(v, where);
  } else if (field == "salt") {
    a.salt = integer(v, where);
  } else if (field == "shape" || field == "newShape" || field == "targetShape" || field == "outShape") {
    a.shape = integers(v, where);
  } else if (field == "perm") {
    a.perm = integers(v, where);
  } else if (field == "axis") {
    a.axis = integer(v, where);
  } else if (field == "start") {
    a.start = integer(v, where);
  } else if (field == "end") {
    a.end = integer(v, where);
  } else if (field == "depth") {
    a.depth = integer(v, where);
  } else if (field == "n") {
    a.n = integer(v, where);
  } else if (field == "dtype") {
    a.dtype = dtypeOf(v, where);
  } else if (field == "value") {
    a.value = number(v, where);
  } else if (field == "fillValue") {
    a.fillValue = number(v, where);
  } else if (field == "beta1" || field == "beta2") {
    a.beta = number(v, where);
  } else if (field == "eps") {
    a.eps = number(v, where);
  } else if (field == "decayShrink") {
    a.decayShrink = number(v, where);
  } else if (field == "strideH") {
    a.strideH = integer(v, where);
  } else if (field == "strideW") {
    a.strideW = integer(v, where);
  } else if (field == "padH") {
    a.padH = integer(v, where);
  } else if (field == "padW") {
    a.padW = integer(v, where);
  } else if (field == "groups") {
    a.groups = integer(v, where);
  } else if (field == "kH") {
    a.kH = integer(v, where);
  } else if (field == "kW") {
    a.kW = integer(v, where);
  } else if (field == "inH") {
    a.inH = integer(v, where);
  } else if (field == "inW") {
    a.inW = integer(v, where);
  } else {
    throw std::logic_error("graphFromJson: unknown attribute field '" + std::string(field) + "'");
  }
}

const nlohmann::json& member(const nlohmann::json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
  return *it;
}

void requireOnly(const nlohmann::json& obj, const std::vector<std::string_view>& known,
                 const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(where, "unknown field '" + key + "'");
  }
}

std::vector<TensorInfo> tensorsFromJson(const nlohmann::json& j) {
  if (!j.is_array()) fail("tensors", "expected an array");
  std::vector<TensorInfo> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = "tensors[" + std::to_string(i) + "]";
    const nlohmann::json& t = j[i];
    if (!t.is_object()) fail(where, "expected an object");
    requireOnly(t, {"id", "shape", "dtype", "source", "site"}, where);
    TensorInfo info;
    info.id = static_cast<int>(integer(member(t, "id", where), where + ".id"));
    if (info.id != static_cast<int>(i)) fail(where, "field 'id' is " + std::to_string(info.id) + ", not its index");
    info.shape = integers(member(t, "shape", where), where + ".shape");
    for (int64_t d : info.shape) {
      if (d <= 0) fail(where, "field 'shape': " + showShape(info.shape) + " has a dim that is not positive");
    }
    if (std::string e = checkTensorShape(info.shape); !e.empty()) fail(where, "field 'shape': " + e);
    info.dtype = dtypeOf(member(t, "dtype", where), where + ".dtype");
    const nlohmann::json& source = member(t, "source", where);
    if (!source.is_null()) info.source = static_cast<int>(integer(source, where + ".source"));
    if (auto s = t.find("site"); s != t.end() && !s->is_null()) {
      const std::string w = where + ".site";
      if (!s->is_object()) fail(w, "expected an object or null");
      requireOnly(*s, {"opName", "frames"}, w);
      CallSite site;
      const nlohmann::json& name = member(*s, "opName", w);
      if (!name.is_string()) fail(w + ".opName", "expected a string");
      site.opName = name.get<std::string>();
      const nlohmann::json& frames = member(*s, "frames", w);
      if (!frames.is_array()) fail(w + ".frames", "expected an array of strings");
      for (const auto& f : frames) {
        if (!f.is_string()) fail(w + ".frames", "expected an array of strings");
        site.frames.push_back(f.get<std::string>());
      }
      info.site = std::move(site);
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

Graph graphFromJson(const nlohmann::json& j) {
  if (!j.is_object()) fail("graph", "expected an object");
  requireOnly(j, {"ops", "tensors", "outputs", "captures"}, "graph");
  Graph g;
  g.tensors = tensorsFromJson(member(j, "tensors", "graph"));
  const int tensorCount = static_cast<int>(g.tensors.size());
  const nlohmann::json& ops = member(j, "ops", "graph");
  if (!ops.is_array()) fail("ops", "expected an array");
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const nlohmann::json& o = ops[i];
    std::string where = "ops[" + std::to_string(i) + "]";
    if (!o.is_object()) fail(where, "expected an object");
    const nlohmann::json& kind = member(o, "kind", where);
    const detail::OpDef* def = kind.is_string() ? detail::opDefByName(kind.get<std::string>()) : nullptr;
    if (!def) fail(where, "unknown op kind " + kind.dump());
    where += " (" + std::string(def->name) + ")";
    std::vector<std::string_view> known = {"kind", "out"};
    known.insert(known.end(), def->inputNames.begin(), def->inputNames.end());
    known.insert(known.end(), def->attrNames.begin(), def->attrNames.end());
    requireOnly(o, known, where);
    Op op;
    op.kind = def->kind;
    // A tensor id this op reads: it exists and an earlier op made it.
    auto tensorId = [&](const nlohmann::json& v, const std::string& field) {
      const int64_t id = integer(v, where + ": field '" + field + "'");
      if (id < 0 || id >= tensorCount)
        fail(where, "field '" + field + "': tensor " + std::to_string(id) + " does not exist");
      if (producer[static_cast<size_t>(id)] < 0) {
        fail(where, "field '" + field + "': tensor " + std::to_string(id) +
                        " is read before any op produces it");
      }
      return static_cast<int>(id);
    };
    if (def->variadic) {
      const std::string field(def->inputNames[0]);
      const nlohmann::json& list = member(o, field.c_str(), where);
      if (!list.is_array()) fail(where, "field '" + field + "': expected an array of tensor ids");
      for (const auto& v : list) op.inputs.push_back(tensorId(v, field));
    } else {
      bool absent = false;
      for (std::string_view name : def->inputNames) {
        const std::string field(name);
        const nlohmann::json& v = member(o, field.c_str(), where);
        if (v.is_null()) {
          absent = true;  // an optional trailing input (adam_update_p's decayShrinkTensor)
          continue;
        }
        if (absent) fail(where, "field '" + field + "' follows an absent input");
        op.inputs.push_back(tensorId(v, field));
      }
    }
    for (std::string_view name : def->attrNames) {
      const std::string field(name);
      setAttr(name, member(o, field.c_str(), where), op.attrs, where + ": field '" + field + "'");
    }
    const int64_t out = integer(member(o, "out", where), where + ": field 'out'");
    if (out < 0 || out >= tensorCount)
      fail(where, "field 'out': tensor " + std::to_string(out) + " does not exist");
    op.out = static_cast<int>(out);
    TensorInfo& t = g.tensors[static_cast<size_t>(out)];
    if (producer[static_cast<size_t>(out)] >= 0) {
      fail(where, "field 'out': tensor " + std::to_string(out) + " is already produced by ops[" +
                      std::to_string(producer[static_cast<size_t>(out)]) + "]");
    }
    if (t.source != static_cast<int>(i)) {
      fail(where, "field 'out': tensor " + std::to_string(out) + " names source " +
                      (t.source ? std::to_string(*t.source) : "null") + ", not this op");
    }
    // Leaves and fills carry their shape (and a leaf its dtype) on the tensor only, as upstream's
    // JSON does; the tracer keeps them in the attributes too.
    const auto& names = def->attrNames;
    auto serialized = [&](std::string_view f) { return std::find(names.begin(), names.end(), f) != names.end(); };
    if (!serialized("shape") && !serialized("newShape") && !serialized("targetShape") && !serialized("outShape"))
      op.attrs.shape = t.shape;
    if (!serialized("dtype")) op.attrs.dtype = t.dtype;
    // The op's own shape and dtype rule, as tracing applies it.
    std::vector<const TensorInfo*> in;
    for (int id : op.inputs) in.push_back(&g.tensors[static_cast<size_t>(id)]);
    const CallSite site = t.site.value_or(CallSite{std::string(def->name), {}, {}});
    detail::OutType type;
    try {
      type = def->infer(detail::InferArgs{in, op.attrs, site});
    } catch (const std::exception& e) {
      fail(where, e.what());
    }
    if (type.shape != t.shape || type.dtype != t.dtype) {
      fail(where, "field 'out': tensor " + std::to_string(out) + " is declared " +
                      showShape(t.shape) + " " + std::string(dtypeName(t.dtype)) +
                      " but the op gives " + showShape(type.shape) + " " +
                      std::string(dtypeName(type.dtype)));
    }
    producer[static_cast<size_t>(out)] = static_cast<int>(i);
    g.ops.push_back(std::move(op));
  }
  for (int id = 0; id < tensorCount; ++id) {
    if (producer[static_cast<size_t>(id)] < 0)
      fail("tensors[" + std::to_string(id) + "]", "no op produces it");
  }
  auto produced = [&](const nlohmann::json& v, const std::string& where) {
    const int64_t id = integer(v, where);
    if (id < 0 || id >= tensorCount) fail(where, "tensor " + std::to_string(id) + " does not exist");
    return static_cast<int>(id);
  };
  const nlohmann::json& outputs = member(j, "outputs", "graph");
  if (!outputs.is_array()) fail("outputs", "expected an array of tensor ids");
  for (size_t i = 0; i < outputs.size(); ++i)
    g.outputs.push_back(produced(outputs[i], "outputs[" + std::to_string(i) + "]"));
  const nlohmann::json& captures = member(j, "captures", "graph");
  if (!captures.is_object()) fail("captures", "expected an object of name → tensor id");
  for (const auto& [name, id] : captures.items())
    g.captures.emplace_back(name, produced(id, "captures." + name));
  return g;
}

}  // namespace tg
