// The HTML report: one self-contained file (no network) a person can browse. The data (kernel
// rows, each distinct WGSL text with its SPIR-V and GLSL, plan, levels, profile) is embedded as
// JSON; the graph as the SVG Graphviz drew; a small script renders the tables, filters the
// kernel list as you type, highlights WGSL and SPIR-V, and links graph nodes to their kernels.
#include <map>
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

namespace {

constexpr const char* kStyle = R"CSS(
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:12px 20px}
header h1{margin:0;font-size:18px}
header .sub{color:#c9d1d9;font-size:13px}
nav{display:flex;gap:4px;padding:8px 20px 0;background:#eaeef2;border-bottom:1px solid #d0d7de}
nav button{border:1px solid transparent;border-bottom:none;background:none;padding:6px 14px;cursor:pointer;font:inherit;border-radius:6px 6px 0 0}
nav button.active{background:#fff;border-color:#d0d7de}
section{display:none;padding:16px 20px}
section.active{display:block}
table{border-collapse:collapse;background:#fff;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f3f6;position:sticky;top:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px;margin-bottom:16px}
.stat{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:10px}
.stat b{display:block;font-size:22px}
#kernels-view{display:grid;grid-template-columns:minmax(420px,46%) 1fr;gap:14px;height:calc(100vh - 130px)}
#kernel-list{overflow:auto;border:1px solid #d0d7de;background:#fff}
#kernel-list tr{cursor:pointer}
#kernel-list tr.selected td{background:#ddf4ff}
#kernel-list tr:hover td{background:#f3f8ff}
#search{width:100%;padding:6px 10px;font:inherit;margin-bottom:8px;border:1px solid #d0d7de;border-radius:6px}
#detail{overflow:auto}
#detail h2{margin:0 0 6px;font-size:16px}
.tabs button{font:inherit;padding:3px 10px;margin-right:4px;border:1px solid #d0d7de;background:#fff;border-radius:4px;cursor:pointer}
.tabs button.active{background:#0969da;color:#fff;border-color:#0969da}
pre.code{background:#fff;border:1px solid #d0d7de;padding:10px;overflow:auto;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:8px 0}
.kw{color:#cf222e}.ty{color:#8250df}.num{color:#0550ae}.com{color:#6e7781;font-style:italic}.at{color:#953800}.op{color:#0550ae;font-weight:600}.id{color:#116329}
.phase-forward{color:#0969da}.phase-backward{color:#bc4c00}.phase-optimizer{color:#1a7f37}
#graph-box{overflow:auto;border:1px solid #d0d7de;background:#fff;height:calc(100vh - 170px)}
#graph-box svg g.node{cursor:pointer}
#graph-box svg g.node.hit polygon,#graph-box svg g.node.hit path{stroke:#cf222e;stroke-width:3}
.muted{color:#6e7781}
.bar{display:inline-block;height:10px;background:#0969da;vertical-align:middle}
)CSS";

constexpr const char* kScript = R"JS(
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const $ = (s, r = document) => r.querySelector(s);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
const fmtBytes = b => b >= 1048576 ? (b / 1048576).toFixed(2) + ' MiB' : b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : b + ' B';

// One regex per language; each alternative is a token class.
const WGSL = /(\/\/[^\n]*)|(@\w+)|\b(fn|let|var|const|override|struct|return|if|else|for|loop|while|break|continue|switch|case|default|workgroupBarrier|storageBarrier|select)\b|\b(f32|i32|u32|bool|vec[234]|vec[234][fiu]|mat\dx\d|array|ptr|storage|read|read_write|workgroup|uniform|function|private)\b|\b(\d+\.?\d*(?:e[+-]?\d+)?[fiu]?|0x[0-9a-fA-F]+[iu]?)\b/g;
const SPIRV = /(;[^\n]*)|(%[\w.]+)|\b(Op\w+)\b|\b(\d+\.?\d*)\b/g;
const GLSL = /(\/\/[^\n]*)|(#\w+)|\b(layout|buffer|uniform|in|out|void|return|if|else|for|while|break|continue|shared|readonly|writeonly|restrict|const|struct)\b|\b(float|int|uint|bool|[iu]?vec[234]|mat[234])\b|\b(\d+\.?\d*(?:e[+-]?\d+)?[uf]?)\b/g;
function highlight(text, lang) {
  const re = lang === 'spirv' ? SPIRV : lang === 'glsl' ? GLSL : WGSL;
  const cls = lang === 'spirv' ? [null, 'com', 'id', 'op', 'num'] : [null, 'com', 'at', 'kw', 'ty', 'num'];
  let out = '', last = 0;
  text.replace(re, (m, ...groups) => {
    const at = groups[groups.length - 2];
    out += esc(text.slice(last, at));
    const g = groups.findIndex((x, i) => i < cls.length - 1 && x !== undefined);
    out += '<span class="' + cls[g + 1] + '">' + esc(m) + '</span>';
    last = at + m.length;
    return m;
  });
  return out + esc(text.slice(last));
}

function showSection(name) {
  document.querySelectorAll('nav button').forEach(b => b.classList.toggle('active', b.dataset.s === name));
  document.querySelectorAll('section').forEach(s => s.classList.toggle('active', s.id === name));
}
document.querySelectorAll('nav button').forEach(b => b.addEventListener('click', () => showSection(b.dataset.s)));

// ---- summary ----
(function summary() {
  const s = D.summary;
  const stats = [['ops', s.ops + ' (fwd ' + s.opsByPhase.forward + ', bwd ' + s.opsByPhase.backward + ', opt ' + s.opsByPhase.optimizer + ')'],
                 ['kernels', s.kernels], ['distinct pipelines', s.pipelines], ['dispatch levels', s.levels],
                 ['buffers', s.buffers + ' (' + s.tensors + ' tensors)'], ['bytes', fmtBytes(s.totalBytes)]];
  if (D.profile) stats.push(['serial GPU cost', D.profile.totalUs.toFixed(1) + ' µs on ' + D.profile.device]);
  let h = '<div class="stats">' + stats.map(([k, v]) => '<div class="stat"><span class="muted">' + esc(k) + '</span><b>' + esc(v) + '</b></div>').join('') + '</div>';
  h += '<h3>Buffers by kind</h3><table><tr><th>kind</th><th class="num">buffers</th><th class="num">bytes</th></tr>';
  for (const [k, v] of Object.entries(s.bufferKinds)) h += '<tr><td>' + esc(k) + '</td><td class="num">' + v.buffers + '</td><td class="num">' + fmtBytes(v.bytes) + '</td></tr>';
  h += '</table><p>' + (s.pooledTensors ? s.pooledTensors + ' intermediates share pooled buffers; own buffers would take ' + fmtBytes(s.unpooledIntermediateBytes) + '.' : 'Every intermediate has its own buffer.') + '</p>';
  h += '<h3>Kernels by op kind</h3><table><tr><th>op kind</th><th class="num">kernels</th></tr>';
  for (const [k, n] of Object.entries(s.kernelsByKind).sort((a, b) => b[1] - a[1])) h += '<tr><td>' + esc(k) + '</td><td class="num">' + n + '</td></tr>';
  $('#summary').innerHTML = h + '</table>';
})();

// ---- kernels ----
const cost = D.profile ? new Map(D.profile.kernels.map(k => [k.index, k])) : null;
let selected = -1, tab = 'wgsl';
function renderList() {
  let h = '<table id="kernel-table"><thead><tr><th class="num">#</th><th>kind</th><th>phase</th><th>output</th>' + (cost ? '<th class="num">µs</th>' : '') + '<th>call site</th></tr></thead><tbody>';
  for (const k of D.kernels)
    h += '<tr data-i="' + k.index + '"><td class="num">' + k.index + '</td><td>' + esc(k.kind) + '</td><td class="phase-' + k.phase + '">' + k.phase + '</td><td>' + esc(k.output) + '</td>' +
         (cost ? '<td class="num">' + cost.get(k.index).us.toFixed(2) + '</td>' : '') + '<td>' + esc(k.site) + '</td></tr>';
  $('#kernel-list').innerHTML = h + '</tbody></table>';
  $('#kernel-list').addEventListener('click', e => { const tr = e.target.closest('tr[data-i]'); if (tr) select(+tr.dataset.i); });
}
function filter() {
  const q = $('#search').value.trim().toLowerCase();
  let shown = 0;
  document.querySelectorAll('#kernel-table tbody tr').forEach(tr => {
    const k = D.kernels[+tr.dataset.i];
    const hit = !q || k.search.includes(q) || D.shaders[k.pipeline].wgsl.toLowerCase().includes(q);
    tr.style.display = hit ? '' : 'none';
    if (hit) ++shown;
  });
  $('#count').textContent = shown + ' of ' + D.kernels.length + ' kernels';
}
function select(i) {
  selected = i;
  document.querySelectorAll('#kernel-table tr.selected').forEach(tr => tr.classList.remove('selected'));
  const tr = $('#kernel-table tr[data-i="' + i + '"]');
  if (tr) tr.classList.add('selected');
  const k = D.kernels[i], sh = D.shaders[k.pipeline];
  let h = '<h2>kernel ' + i + ': ' + esc(k.kind) + ' → ' + esc(k.output) + '</h2><table>';
  const rows = [['op', k.op], ['phase', k.phase], ['call site', k.site || '(appended by the library)'], ['threads', k.threads],
                ['workgroups', k.workgroups.join(' × ') + ' of ' + k.workgroupSize], ['bindings (buffers)', k.bindings.join(', ') + ' (last: output)'],
                ['level', k.level], ['pipeline', k.pipeline + ' (kernels sharing it: ' + sh.users + ')']];
  if (k.fused.length) rows.push(['fused ops', k.fused.join(', ')]);
  if (cost) { const c = cost.get(i); rows.push(['time', c.us.toFixed(2) + ' µs; ' + (c.us > 0 ? (c.bytes / c.us / 1e3).toFixed(2) + ' GB/s, ' + (c.flops / c.us / 1e3).toFixed(2) + ' GFLOP/s' : '')]); }
  for (const [a, b] of rows) h += '<tr><th>' + esc(a) + '</th><td>' + esc(b) + '</td></tr>';
  // A bundle's kernels also carry the WGSL upstream ran in the browser.
  const tabs = ['wgsl', 'spirv', 'glsl'].concat(k.upstream !== null ? ['upstream'] : []);
  if (!tabs.includes(tab)) tab = 'wgsl';
  const names = {wgsl: 'WGSL', spirv: 'SPIR-V', glsl: 'GLSL', upstream: "upstream's WGSL (browser)"};
  h += '</table><p class="tabs">' + tabs.map(t => '<button data-t="' + t + '" class="' + (t === tab ? 'active' : '') + '">' + names[t] + '</button>').join('') + '</p>';
  const text = tab === 'upstream' ? D.upstream[k.upstream] : sh[tab];
  h += '<pre class="code" id="code">' + (text ? highlight(text, tab === 'upstream' ? 'wgsl' : tab) : '<span class="muted">' + esc(sh.error || 'none') + '</span>') + '</pre>';
  $('#detail').innerHTML = h;
  $('#detail .tabs').addEventListener('click', e => { if (e.target.dataset.t) { tab = e.target.dataset.t; select(selected); } });
}
renderList();
$('#search').addEventListener('input', filter);
filter();
if (D.kernels.length) select(0);

// ---- graph ----
(function graph() {
  const box = $('#graph-box');
  const svg = box.querySelector('svg');
  if (!svg) return;
  const kernelOf = new Map(D.graphKernels.map(([op, k]) => [op, k]));
  box.addEventListener('click', e => {
    const g = e.target.closest('g.node');
    if (!g) return;
    const op = +g.id.replace(/^op/, '');
    if (kernelOf.has(op)) { showSection('kernels'); select(kernelOf.get(op)); $('#kernel-table tr.selected').scrollIntoView({block: 'center'}); }
  });
  $('#graph-find').addEventListener('input', e => {
    const q = e.target.value.trim().toLowerCase();
    let first = null;
    box.querySelectorAll('g.node').forEach(g => {
      const hit = q && g.textContent.toLowerCase().includes(q);
      g.classList.toggle('hit', !!hit);
      if (hit && !first) first = g;
    });
    if (first) first.scrollIntoView({block: 'center', inline: 'center'});
  });
})();

// ---- plan, schedule, profile ----
(function tables() {
  let h = '<p>' + esc(D.planReport) + '</p><table><tr><th class="num">buffer</th><th>kind</th><th>type</th><th>shape</th><th class="num">bytes</th><th class="num">tensors</th><th>live (kernels)</th><th>name</th></tr>';
  for (const b of D.buffers) h += '<tr><td class="num">' + b.id + '</td><td>' + esc(b.kind) + '</td><td>' + b.dtype + '</td><td>' + b.shape + '</td><td class="num">' + b.bytes + '</td><td class="num">' + b.tensors + '</td><td>' + (b.first === null ? '—' : b.first + '..' + b.last) + '</td><td>' + esc(b.name) + '</td></tr>';
  $('#plan').innerHTML = h + '</table>';
  h = '<p>' + D.kernels.length + ' kernels in ' + D.levels.length + ' levels, one barrier each; the kernels of a level touch no buffer another of them writes, and dispatch in the order listed.</p><table><tr><th class="num">level</th><th class="num">kernels</th><th class="num">longest loop</th><th>op kinds</th><th>kernel indices</th></tr>';
  for (const l of D.levels) h += '<tr><td class="num">' + l.level + '</td><td class="num">' + l.kernels.length + '</td><td class="num">' + l.longestLoop + '</td><td>' + esc(l.kinds.map(([k, n]) => n > 1 ? k + ' ×' + n : k).join(', ')) + '</td><td>' + l.kernels.join(' ') + '</td></tr>';
  $('#schedule').innerHTML = h + '</table>';
  if (!D.profile) { $('#profile').innerHTML = '<p class="muted">Not measured: run <code>tg-inspect html … --profile</code> to time every kernel on a device.</p>'; return; }
  const groups = {};
  for (const k of D.profile.kernels) { const g = groups[k.kind] ??= {n: 0, us: 0, bytes: 0, flops: 0}; g.n++; g.us += k.us; g.bytes += k.bytes; g.flops += k.flops; }
  const total = D.profile.totalUs, max = Math.max(...Object.values(groups).map(g => g.us), 1e-9);
  h = '<p>' + esc(D.profile.device) + ': serial GPU cost ' + total.toFixed(1) + ' µs (at least ' + D.profile.reps + ' dispatches a timing, and 2 ms on a GPU). GB/s and GFLOP/s are estimates from the tensors each op reads and writes.</p>';
  if (D.trace) h += '<p id="trace-link">Timeline of one step, by dispatch level: <a href="' + esc(D.trace) + '">' + esc(D.trace) + '</a> (open it in <a href="https://ui.perfetto.dev">Perfetto</a> or chrome://tracing).</p>';
  h += '<table><tr><th>op kind</th><th class="num">kernels</th><th class="num">total µs</th><th>share</th><th class="num">µs/kernel</th><th class="num">GB/s</th><th class="num">GFLOP/s</th></tr>';
  for (const [k, g] of Object.entries(groups).sort((a, b) => b[1].us - a[1].us))
    h += '<tr><td>' + esc(k) + '</td><td class="num">' + g.n + '</td><td class="num">' + g.us.toFixed(1) + '</td><td><span class="bar" style="width:' + (120 * g.us / max).toFixed(0) + 'px"></span> ' + (100 * g.us / total).toFixed(1) + '%</td><td class="num">' + (g.us / g.n).toFixed(2) + '</td><td class="num">' + (g.us > 0 ? (g.bytes / g.us / 1e3).toFixed(2) : '') + '</td><td class="num">' + (g.us > 0 ? (g.flops / g.us / 1e3).toFixed(2) : '') + '</td></tr>';
  $('#profile').innerHTML = h + '</table>';
})();
)JS";

// JSON inside <script>: "</" must not close the element.
std::string scriptSafe(std::string json) {
  for (size_t at = 0; (at = json.find("</", at)) != std::string::npos; at += 3)
    json.replace(at, 2, "<\\/");
  return json;
}

std::string htmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Graphviz's SVG without its XML prolog and doctype, to sit inline.
std::string inlineSvg(const std::string& svg) {
  const size_t start = svg.find("<svg");
  return start == std::string::npos ? "" : svg.substr(start);
}

}  // namespace

std::string htmlReport(const Subject& s, const HtmlOptions& options) {
  const std::vector<KernelRow> rows = kernelRows(s);
  nlohmann::json shaders = nlohmann::json::array();
  std::vector<size_t> users;
  for (const KernelRow& r : rows) {
    if (r.pipeline < shaders.size()) {
      ++users[r.pipeline];
      continue;
    }
    const std::string& wgsl = s.kernel(r.index).wgsl;
    nlohmann::json sh = {{"wgsl", wgsl}};
    try {
      const Shader t = translateShader(wgsl);
      sh["spirv"] = t.spirvAsm;
      sh["glsl"] = t.glsl;
    } catch (const std::exception& e) {
      sh["error"] = e.what();  // shown in place of the SPIR-V; the report stays usable
    }
    shaders.push_back(std::move(sh));
    users.push_back(1);
  }
  for (size_t i = 0; i < shaders.size(); ++i) shaders[i]["users"] = users[i];
  // A bundle's kernels as upstream emitted them in the browser, deduplicated like ours.
  std::map<int, const std::string*> upstreamOf;
  if (s.bundle)
    for (const tg::UpstreamKernel& u : s.bundle->kernels)
      if (!u.wgsl.empty()) upstreamOf[u.opIndex] = &u.wgsl;
  nlohmann::json upstream = nlohmann::json::array();
  std::map<std::string_view, size_t> upstreamIndex;
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelRow& r : rows) {
    nlohmann::json up = nullptr;
    if (const auto it = upstreamOf.find(r.opIndex); it != upstreamOf.end()) {
      const auto [at, fresh] = upstreamIndex.emplace(*it->second, upstream.size());
      if (fresh) upstream.push_back(*it->second);
      up = at->second;
    }
    std::string search =
        std::to_string(r.index) + " " + r.kind + " " + r.phase + " " + r.output + " " + r.site;
    for (char& c : search) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    kernels.push_back({{"index", r.index},
                       {"op", r.opIndex},
                       {"kind", r.kind},
                       {"phase", r.phase},
                       {"site", r.site},
                       {"output", r.output},
                       {"threads", r.threads},
                       {"workgroups", r.workgroups},
                       {"workgroupSize", r.workgroupSize},
                       {"bindings", r.bindings},
                       {"level", r.level},
                       {"pipeline", r.pipeline},
                       {"fused", r.fusedOps},
                       {"upstream", up},
                       {"search", search}});
  }
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferRow& b : bufferRows(s))
    buffers.push_back({{"id", b.id},
                       {"kind", b.kind},
                       {"name", b.name},
                       {"dtype", b.dtype},
                       {"shape", b.shape},
                       {"bytes", b.bytes},
                       {"tensors", b.tensors},
                       {"first", b.first ? nlohmann::json(*b.first) : nlohmann::json(nullptr)},
                       {"last", b.last ? nlohmann::json(*b.last) : nlohmann::json(nullptr)}});
  nlohmann::json levels = nlohmann::json::array();
  for (const LevelRow& l : levelRows(s))
    levels.push_back({{"level", l.level},
                      {"kernels", l.kernels},
                      {"kinds", l.kinds},
                      {"longestLoop", l.longestLoop}});
  nlohmann::json graphKernels = nlohmann::json::array();
  for (const KernelRow& r : rows) {
    graphKernels.push_back({r.opIndex, r.index});
    for (int op : r.fusedOps) graphKernels.push_back({op, r.index});
  }
  const nlohmann::json data = {
      {"title", s.title},
      {"options", s.options},
      {"summary", summaryJson(summarize(s))},
      {"kernels", kernels},
      {"shaders", shaders},
      {"upstream", upstream},
      {"buffers", buffers},
      {"planReport", s.ir.plan.report()},
      {"levels", levels},
      {"graphKernels", graphKernels},
      {"profile", options.profile ? profileJson(s, *options.profile) : nlohmann::json(nullptr)},
      {"trace", options.traceLink ? nlohmann::json(*options.traceLink) : nlohmann::json(nullptr)}};

  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     << "<title>tg-inspect: " << htmlEscape(s.title) << "</title>\n<style>" << kStyle
     << "</style></head><body>\n"
     << "<header><h1>tg-inspect: " << htmlEscape(s.title) << "</h1><div class=\"sub\">"
     << htmlEscape(s.options) << " · " << s.kernels.size() << " kernels · " << s.ir.graph.ops.size()
     << " ops</div></header>\n"
     << "<nav><button data-s=\"summary\" class=\"active\">Summary</button><button "
        "data-s=\"kernels\">Kernels</button>"
     << "<button data-s=\"graph\">Graph</button><button data-s=\"plan\">Buffer plan</button>"
     << "<button data-s=\"schedule\">Schedule</button><button "
        "data-s=\"profile\">Profile</button></nav>\n"
     << "<section id=\"summary\" class=\"active\"></section>\n"
     << "<section id=\"kernels\"><div id=\"kernels-view\"><div "
        "style=\"display:flex;flex-direction:column;min-height:0\">"
     << "<input id=\"search\" type=\"search\" placeholder=\"Search kernels: op kind, shape, call "
        "site, WGSL text…\">"
     << "<div id=\"count\" class=\"muted\"></div><div id=\"kernel-list\"></div></div><div "
        "id=\"detail\"></div></div></section>\n"
     << "<section id=\"graph\"><p><input id=\"graph-find\" type=\"search\" placeholder=\"Find "
        "nodes…\"> "
     << "<span class=\"muted\">Blue: forward, orange: backward, green: optimizer; dashed boxes: "
        "fused kernels. Click a "
        "node for its kernel.</span></p><div id=\"graph-box\">"
     << (options.svg ? inlineSvg(*options.svg)
                     : "<p class=\"muted\">No graph: " + htmlEscape(options.noGraph) + ".</p>")
     << "</div></section>\n"
     << "<section id=\"plan\"></section>\n<section id=\"schedule\"></section>\n<section "
        "id=\"profile\"></section>\n"
     << "<script type=\"application/json\" id=\"data\">" << scriptSafe(data.dump()) << "</script>\n"
     << "<script>" << kScript << "</script>\n</body></html>\n";
  return os.str();
}

}  // namespace tg_inspect
