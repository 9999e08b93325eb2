// TENSORGRAD_DUMP: one folder per compile, in the spirit of PyTorch's TORCH_COMPILE_DEBUG,
// tinygrad's DEBUG=4 and Dawn's dump_shaders. What a folder holds:
//   compile.txt          what was compiled, where from (the call site), with which options, and
//                        the tg-inspect / tgparity commands that open it
//   kernels/NNNN_<op>.wgsl   each dispatched kernel as this compile runs it (its own kernel set),
//                        numbered by dispatch index as `tg-inspect wgsl --all -o` numbers them;
//                        .spvasm and .glsl beside them with TENSORGRAD_DUMP_SHADERS=spirv,glsl
//   kernels.txt          one row per kernel: op, kind, level, output, threads, bindings, call site
//   plan.txt, plan.json  the buffer plan (every buffer, pooling) and the dispatch schedule
//   bundle.tgbundle.json the compile as a graph bundle (makeBundle); a standalone forward, which
//                        no bundle can hold, writes graph.json instead
#include "dump.h"

#include <spirv-tools/libspirv.hpp>

#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "bundle_writer.h"
#include "tensorgrad/bundle.h"
#include "tensorgrad/json.h"
#include "tensorgrad/schedule.h"
#include "wgsl_subset/wgsl_subset.h"

namespace tg::detail {

namespace {

namespace fs = std::filesystem;

struct DumpConfig {
  fs::path dir;
  bool spirv = false, glsl = false;
};

// The environment, read once (the first compile).
const std::optional<DumpConfig>& config() {
  static const std::optional<DumpConfig> parsed = []() -> std::optional<DumpConfig> {
    const char* dir = std::getenv("TENSORGRAD_DUMP");
    if (!dir || !*dir) return std::nullopt;
    DumpConfig c{dir};
    if (const char* shaders = std::getenv("TENSORGRAD_DUMP_SHADERS")) {
      std::stringstream list(shaders);
      for (std::string word; std::getline(list, word, ',');) {
        if (word == "spirv" || word == "all") c.spirv = true;
        if (word == "glsl" || word == "all") c.glsl = true;
        if (word != "spirv" && word != "glsl" && word != "all" && !word.empty()) {
          std::fprintf(stderr,
                       "tensorgrad: TENSORGRAD_DUMP_SHADERS: unknown shader form '%s' (spirv, glsl "
                       "or all, comma-separated); left out\n",
                       word.c_str());
        }
      }
    }
    return c;
  }();
  return parsed;
}

std::mutex gMutex;                 // one dump at a time: compiles run on any thread
std::atomic<bool> gFailed{false};  // a dump failed: the rest of the process dumps nothing

// A name for the folder: [A-Za-z0-9_.] kept, the rest '_', at most 48 characters.
std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.';
    out.push_back(keep ? c : '_');
  }
  return out.substr(0, 48);
}

// The call site that names a compile: where its result (the loss, the forward's output) was made.
const CallSite* resultSite(const CompiledIR& ir) {
  const auto& site = ir.graph.tensor(ir.output).site;
  return site ? &*site : nullptr;
}

// "mlpLoss" for a named function (namespaces dropped); for a lambda, which has no name of its
// own, "<file>_L<line>"; "model" when the graph carries no call sites.
std::string label(const CompiledIR& ir) {
  const CallSite* site = resultSite(ir);
  if (!site) return "model";
  std::string function = siteFunction(*site);
  const bool lambda = function.ends_with(".<lambda>") || function.empty();
  if (lambda && site->frames.empty() && *site->location.file_name() != '\0') {
    return sanitize(fs::path(site->location.file_name()).stem().string() + "_L" +
                    std::to_string(site->location.line()));
  }
  if (const size_t colons = function.rfind("::"); colons != std::string::npos)
    function = function.substr(colons + 2);
  return function.empty() ? "model" : sanitize(function);
}

// The next free number under `dir`: one past the highest NNN- folder there.
int nextNumber(const fs::path& dir) {
  int next = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    size_t digits = 0;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    if (digits == 0 || digits >= name.size() || name[digits] != '-') continue;
    next = std::max(next, std::stoi(name.substr(0, digits)) + 1);
  }
  return next;
}

// Creates the compile's folder; an existing one (another process took the number) is never reused.
fs::path claimFolder(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    char number[16];
    std::snprintf(number, sizeof number, "%03d", nextNumber(dir));
    const fs::path folder = dir / (std::string(number) + "-" + name);
    if (fs::create_directory(folder)) return folder;
  }
  throw std::runtime_error("no free folder name under " + dir.string());
}

void writeFile(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out)
    throw std::runtime_error("cannot write " + path.string() + " (" + std::strerror(errno) + ")");
}

std::string shapeText(const Shape& shape) {
  std::string t = "[";
  for (size_t i = 0; i < shape.size(); ++i) t += (i ? "," : "") + std::to_string(shape[i]);
  return t + "]";
}

std::string shortSite(const Graph& g, const Op& op) {
  const auto& site = g.tensor(op.out).site;
  if (!site) return "";
  if (!site->frames.empty()) return "[" + site->opName + "] " + site->frames.front();
  return "[" + site->opName + "] " + fs::path(site->location.file_name()).filename().string() +
         ":" + std::to_string(site->location.line()) + " (" + siteFunction(*site) + ")";
}

std::string kernelsText(const CompiledIR& ir, const DispatchSchedule& schedule,
                        const std::vector<size_t>& dispatched) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%5s %5s %-22s %5s %-20s %10s %11s  %-16s %s\n", "#", "op",
                "kind", "level", "output", "threads", "workgroups", "bindings", "call site");
  os << line;
  for (size_t i = 0; i < dispatched.size(); ++i) {
    const KernelSpec& k = ir.kernels[dispatched[i]];
    const Op& op = ir.graph.ops.at(static_cast<size_t>(k.opIndex));
    const TensorInfo& out = ir.graph.tensor(op.out);
    std::string bindings;
    for (int b : k.bindings) bindings += (bindings.empty() ? "" : ",") + std::to_string(b);
    const auto wg = k.dispatch();
    const std::string output = std::string(dtypeName(out.dtype)) + shapeText(out.shape);
    const std::string grid = std::to_string(wg[0]) + "x" + std::to_string(wg[1]);
    std::snprintf(line, sizeof line, "%5zu %5d %-22s %5d %-20s %10lld %11s  %-16s %s\n", i,
                  k.opIndex, std::string(opKindName(k.kind)).c_str(),
                  schedule.level.at(dispatched[i]), output.c_str(),
                  static_cast<long long>(k.threads), grid.c_str(), bindings.c_str(),
                  shortSite(ir.graph, op).c_str());
    os << line;
  }
  return os.str();
}

std::string planText(const CompiledIR& ir, const DispatchSchedule& schedule,
                     const std::vector<size_t>& dispatched) {
  std::ostringstream os;
  os << ir.plan.report() << "\n\n";
  std::vector<size_t> tensors(ir.plan.buffers.size(), 0);
  for (int b : ir.plan.tensorToBuffer)
    if (b >= 0 && static_cast<size_t>(b) < tensors.size()) ++tensors[static_cast<size_t>(b)];
  char line[512];
  std::snprintf(line, sizeof line, "%5s %-13s %-4s %-20s %12s %7s  %s\n", "buf", "kind", "type",
                "shape", "bytes", "tensors", "name");
  os << line;
  for (const BufferSpec& b : ir.plan.buffers) {
    std::snprintf(line, sizeof line, "%5d %-13s %-4s %-20s %12lld %7zu  %s\n", b.id,
                  std::string(bufferKindName(b.kind)).c_str(),
                  std::string(dtypeName(b.dtype)).c_str(), shapeText(b.shape).c_str(),
                  static_cast<long long>(b.byteSize), tensors[static_cast<size_t>(b.id)],
                  b.name.c_str());
    os << line;
  }
  os << "\nschedule: " << dispatched.size() << " kernels in " << schedule.levels
     << " levels (a barrier between levels)\n";
  std::vector<std::string> levels(static_cast<size_t>(std::max(0, schedule.levels)));
  for (size_t i = 0; i < dispatched.size(); ++i) {
    std::string& l = levels.at(static_cast<size_t>(schedule.level.at(dispatched[i]) - 1));
    l += (l.empty() ? "" : " ") + std::to_string(i);
  }
  for (size_t l = 0; l < levels.size(); ++l)
    os << "level " << l + 1 << ": kernels " << levels[l] << "\n";
  return os.str();
}

// WGSL → SPIR-V (disassembled) and the GLSL wgsl_subset hands to glslang, per distinct kernel.
void writeShaders(const fs::path& dir, const std::string& stem, const std::string& wgsl,
                  const DumpConfig& c, std::map<std::string, wgsl::Result>& translated) {
  auto it = translated.find(wgsl);
  if (it == translated.end()) it = translated.emplace(wgsl, wgsl::translate(wgsl)).first;
  const wgsl::Result& r = it->second;
  if (!r.ok()) {
    writeFile(dir / (stem + ".error.txt"), wgsl::formatDiagnostics(r.diagnostics) + "\n");
    return;
  }
  if (c.glsl) writeFile(dir / (stem + ".glsl"), r.glsl);
  if (c.spirv) {
    std::string text;
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
    if (!tools.Disassemble(
            r.spirv, &text,
            SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
      throw std::runtime_error("SPIRV-Tools could not disassemble kernel " + stem);
    writeFile(dir / (stem + ".spvasm"), text);
  }
}

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string programPath() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "(unknown)" : exe.string();
}

void dump(const CompiledIR& ir, const CompiledIR* training, const RuntimeOptions& options,
          const DumpConfig& c, std::string& folderName) {
  const bool isTraining = ir.optimizerConfig.has_value();
  folderName = label(ir) + (isTraining ? "-train" : "-forward");
  const fs::path folder = claimFolder(c.dir, folderName);
  folderName = folder.filename().string();

  std::vector<size_t> dispatched;
  for (size_t i = 0; i < ir.kernels.size(); ++i)
    if (!ir.kernels[i].wgsl.empty()) dispatched.push_back(i);
  const DispatchSchedule schedule = scheduleDispatches(ir.kernels);

  // The bundle (or graph) first: it is what the tools open. A compile no bundle can hold (a
  // parameter that is not f32) gets its graph and says why; a bundle that does not write fails.
  std::string artifact, noBundle;
  if (isTraining || training) {
    std::optional<Bundle> b;
    try {
      b = makeBundle(isTraining ? ir : *training);
      if (!isTraining) b->forwards.push_back(makeBundleForward(label(ir), ir));
    } catch (const BundleError& e) {
      noBundle = e.what();
    }
    if (b) {
      artifact = "bundle.tgbundle.json";
      saveBundle(*b, folder / artifact);
    }
  } else {
    noBundle = "a standalone forward has no training for a bundle to hold";
  }
  if (artifact.empty()) {
    artifact = "graph.json";
    writeFile(folder / artifact, bundleGraphJson(ir.graph).dump(
                                     1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                     "\n");
  }

  const fs::path kernels = folder / "kernels";
  fs::create_directory(kernels);
  std::map<std::string, wgsl::Result> translated;
  for (size_t i = 0; i < dispatched.size(); ++i) {
    const KernelSpec& k = ir.kernels[dispatched[i]];
    char stem[96];
    std::snprintf(stem, sizeof stem, "%04zu_%s", i, std::string(opKindName(k.kind)).c_str());
    writeFile(kernels / (std::string(stem) + ".wgsl"), k.wgsl);
    if (c.spirv || c.glsl) writeShaders(kernels, stem, k.wgsl, c, translated);
  }
  writeFile(folder / "kernels.txt", kernelsText(ir, schedule, dispatched));
  writeFile(folder / "plan.txt", planText(ir, schedule, dispatched));
  nlohmann::json plan = {
      {"plan", planToJson(ir.plan)},
      {"schedule",
       {{"levels", schedule.levels}, {"order", schedule.order}, {"level", schedule.level}}}};
  writeFile(folder / "plan.json", plan.dump(1) + "\n");

  size_t pipelines = 0;
  {
    std::set<std::string_view> texts;
    for (size_t i : dispatched) texts.insert(ir.kernels[i].wgsl);
    pipelines = texts.size();
  }
  const CallSite* site = resultSite(ir);
  const bool fast = options.emit.kernels == KernelSet::Fast;
  const std::string abs = fs::absolute(folder).string();
  std::ostringstream os;
  os << "tensorgrad compile " << folderName << "\n"
     << "what        "
     << (isTraining ? "a training (compile)"
         : training ? "a forward attached to a training"
                    : "a forward (compileForward)")
     << "\n"
     << "computed at " << (site ? formatSite(*site) : std::string("(no call site)")) << "\n"
     << "program     " << programPath() << " (pid " << ::getpid() << ")\n"
     << "time        " << utcNow() << "\n"
     << "kernels     "
     << (fast ? "the fast set (KernelSet::Fast)" : "upstream's (KernelSet::Upstream)")
     << (options.emit.fuseElementwise || fast ? ", element-wise chains fused" : "") << "\n"
     << "graph       " << ir.graph.ops.size() << " ops, " << ir.graph.tensors.size() << " tensors; "
     << dispatched.size() << " kernels dispatched, " << pipelines << " distinct, in "
     << schedule.levels << " levels\n"
     << "plan        " << ir.plan.report() << "\n\n"
     << "files\n"
     << "  kernels/NNNN_<op>.wgsl  each dispatched kernel as this compile runs it (by dispatch "
        "index)"
     << (c.spirv || c.glsl ? "; .spvasm / .glsl: wgsl_subset's SPIR-V and the GLSL it hands glslang"
                           : "")
     << "\n"
     << "  kernels.txt, plan.txt, plan.json  the kernels, the buffer plan and the dispatch "
        "schedule\n";
  if (artifact == "graph.json") {
    os << "  graph.json              the graph, with call sites (no bundle: " << noBundle << ")\n";
  } else {
    os << "  " << artifact
       << "    the compile as a graph bundle (its kernels: the default set's, standing in for upstream's)\n\n"
       << "open it\n"
       << "  tg-inspect summary " << abs << "/" << artifact << (fast ? " --fast" : "") << "\n"
       << "  tg-inspect kernels " << abs << "/" << artifact << (fast ? " --fast" : "") << "\n"
       << "  tg-inspect html " << abs << "/" << artifact << (fast ? " --fast" : "")
       << " -o report.html\n";
  }
  writeFile(folder / "compile.txt", os.str());
}

}  // namespace

bool dumpEnabled() {
  return config().has_value() && !gFailed.load(std::memory_order_relaxed);
}

void dumpCompile(const CompiledIR& ir, const CompiledIR* training, const RuntimeOptions& options) {
  if (!dumpEnabled()) return;
  std::lock_guard lock(gMutex);
  if (gFailed) return;
  std::string folder;
  try {
    dump(ir, training, options, *config(), folder);
  } catch (const std::exception& e) {
    gFailed = true;
    std::fprintf(
        stderr,
        "tensorgrad: TENSORGRAD_DUMP=%s: could not dump compile %s: %s\n"
        "tensorgrad: dumping is off for the rest of this process; the compile itself goes on\n",
        config()->dir.c_str(), folder.c_str(), e.what());
  }
}

}  // namespace tg::detail
