// The graph: every op a node labelled with its kind, output shape and call site, coloured by
// phase (forward, backward, optimizer); the ops one fused kernel computes boxed together; an
// edge per tensor an op reads. As JSON, as Graphviz DOT, and as SVG through `dot`.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

namespace {

// Which fused kernel (dispatch index) each op belongs to, for kernels computing more than one op.
std::map<int, size_t> fusedGroups(const Subject& s) {
  std::map<int, size_t> group;
  for (size_t i = 0; i < s.kernels.size(); ++i) {
    const tg::KernelSpec& k = s.ir.kernels[s.kernels[i]];
    if (k.fusedOps.size() > 1)
      for (int op : k.fusedOps) group[op] = i;
  }
  return group;
}

std::map<int, size_t> kernelOfOp(const Subject& s) {
  std::map<int, size_t> kernel;
  for (size_t i = 0; i < s.kernels.size(); ++i) kernel[s.ir.kernels[s.kernels[i]].opIndex] = i;
  return kernel;
}

std::string dotEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

nlohmann::json graphJson(const Subject& s) {
  const tg::Graph& g = s.ir.graph;
  const std::vector<Phase> phases = opPhases(s.ir);
  const auto groups = fusedGroups(s);
  const auto kernels = kernelOfOp(s);
  nlohmann::json nodes = nlohmann::json::array(), edges = nlohmann::json::array();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const tg::Op& op = g.ops[i];
    const tg::TensorInfo& out = g.tensor(op.out);
    const int idx = static_cast<int>(i);
    nodes.push_back(
        {{"id", i},
         {"kind", tg::opKindName(op.kind)},
         {"phase", phaseName(phases[i])},
         {"dtype", tg::dtypeName(out.dtype)},
         {"shape", out.shape},
         {"site", callSite(g, op)},
         {"name", op.attrs.name},
         {"kernel", kernels.count(idx) ? nlohmann::json(kernels.at(idx)) : nlohmann::json(nullptr)},
         {"fusedKernel",
          groups.count(idx) ? nlohmann::json(groups.at(idx)) : nlohmann::json(nullptr)}});
    for (int t : op.inputs) {
      const auto& src = g.tensor(t).source;
      if (src) edges.push_back({{"from", *src}, {"to", i}, {"tensor", t}});
    }
  }
  return {{"title", s.title}, {"nodes", nodes}, {"edges", edges}};
}

std::string graphDot(const Subject& s) {
  const tg::Graph& g = s.ir.graph;
  const std::vector<Phase> phases = opPhases(s.ir);
  const auto groups = fusedGroups(s);
  static constexpr const char* kFill[] = {"#dbeafe", "#fde2c8",
                                          "#d9f2d9"};  // forward, backward, optimizer
  std::ostringstream os;
  os << "digraph tensorgrad {\n  graph [rankdir=TB, fontname=\"Helvetica\", label=\""
     << dotEscape(s.title)
     << "\\nblue: forward, orange: backward, green: optimizer; boxes: fused kernels\", "
        "labelloc=t,\n"
     // Straight edges and short crossing-minimisation and ranking passes: a transformer's 1,000
     // ops lay out in seconds instead of many minutes, at the price of a few more crossings.
     << "         splines=line, mclimit=0.05, nslimit=1, nslimit1=1, remincross=false];\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [color=\"#888888\", arrowsize=0.6];\n";
  auto node = [&](size_t i) {
    const tg::Op& op = g.ops[i];
    const tg::TensorInfo& out = g.tensor(op.out);
    std::string label = std::string(tg::opKindName(op.kind));
    if (!op.attrs.name.empty()) label += " " + op.attrs.name;
    label += "\n" + std::string(tg::dtypeName(out.dtype)) + shapeText(out.shape);
    const std::string site = callSite(g, op);
    if (!site.empty()) label += "\n" + site;
    std::ostringstream n;
    n << "  op" << i << " [id=\"op" << i << "\", label=\"" << dotEscape(label) << "\", fillcolor=\""
      << kFill[static_cast<size_t>(phases[i])] << "\"];\n";
    return n.str();
  };
  std::map<size_t, std::vector<size_t>> clusters;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const auto it = groups.find(static_cast<int>(i));
    if (it == groups.end())
      os << node(i);
    else
      clusters[it->second].push_back(i);
  }
  for (const auto& [kernel, ops] : clusters) {
    os << "  subgraph cluster_k" << kernel << " {\n    label=\"fused kernel " << kernel
       << "\"; style=dashed; color=\"#7c3aed\"; fontsize=10;\n";
    for (size_t i : ops) os << "  " << node(i);
    os << "  }\n";
  }
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (int t : g.ops[i].inputs) {
      const auto& src = g.tensor(t).source;
      if (src) os << "  op" << *src << " -> op" << i << ";\n";
    }
  os << "}\n";
  return os.str();
}

bool haveGraphviz() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((std::filesystem::path(dir) / "dot").c_str(), X_OK) == 0)
      return true;
  return false;
}

std::string dotToSvg(const std::string& dot) {
  if (!haveGraphviz())
    throw std::runtime_error(
        "Graphviz's `dot` is not on PATH, so there is no SVG; install it (Debian: apt-get install "
        "graphviz) or ask for --format dot and render it elsewhere");
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path(ec) /
      ("tg-inspect-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create a temporary directory for dot: " + ec.message());
  const auto in = dir / "graph.dot", out = dir / "graph.svg", err = dir / "dot.err";
  std::ofstream(in) << dot;
  const std::string cmd =
      "dot -Tsvg '" + in.string() + "' -o '" + out.string() + "' 2> '" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  std::stringstream svg, why;
  svg << std::ifstream(out).rdbuf();
  why << std::ifstream(err).rdbuf();
  std::filesystem::remove_all(dir, ec);
  if (rc != 0 || svg.str().empty())
    throw std::runtime_error("dot failed (status " + std::to_string(rc) + "): " + why.str());
  return svg.str();
}

}  // namespace tg_inspect
