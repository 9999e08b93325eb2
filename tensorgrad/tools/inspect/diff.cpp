// Two compiles side by side: their kernels aligned by (op kind, output shape) with a longest
// common subsequence, so an inserted or fused kernel shifts nothing; aligned kernels whose WGSL
// differs are "changed" (with a unified diff), the rest added or removed.
#include <sstream>

#include "inspect.h"

namespace tg_inspect {

namespace {

// Longest common subsequence of two sequences, as index pairs; `cells` bounds the table.
template <class T>
std::vector<std::pair<size_t, size_t>> lcs(const std::vector<T>& a, const std::vector<T>& b) {
  const size_t n = a.size(), m = b.size();
  if (n != 0 && m > size_t{200'000'000} / n)
    throw InputError("too many kernels or lines to align (" + std::to_string(n) + " x " +
                     std::to_string(m) + ")");
  std::vector<uint32_t> t((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return t[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (a[i] == b[j])
      pairs.emplace_back(i++, j++);
    else if (at(i + 1, j) >= at(i, j + 1))
      ++i;
    else
      ++j;
  }
  return pairs;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> signatures(const std::vector<KernelRow>& rows) {
  std::vector<std::string> out;
  // Not the call site: a bundle's sites are JavaScript frames, a sample's C++ lines.
  for (const KernelRow& r : rows) out.push_back(r.kind + " " + r.output);
  return out;
}

}  // namespace

std::string unifiedDiff(const std::string& a, const std::string& b) {
  const std::vector<std::string> la = lines(a), lb = lines(b);
  auto pairs = lcs(la, lb);
  pairs.emplace_back(la.size(), lb.size());  // sentinel
  // Edit script: ' ' kept, '-' only in a, '+' only in b.
  std::vector<std::pair<char, std::string>> script;
  size_t i = 0, j = 0;
  for (const auto& [pi, pj] : pairs) {
    while (i < pi) script.emplace_back('-', la[i++]);
    while (j < pj) script.emplace_back('+', lb[j++]);
    if (pi < la.size()) script.emplace_back(' ', la[pi]);
    i = pi + 1;
    j = pj + 1;
  }
  // Hunks: changed lines with 3 lines of context.
  constexpr size_t kContext = 3;
  std::vector<bool> show(script.size(), false);
  for (size_t k = 0; k < script.size(); ++k)
    if (script[k].first != ' ')
      for (size_t c = (k >= kContext ? k - kContext : 0);
           c <= std::min(script.size() - 1, k + kContext); ++c)
        show[c] = true;
  std::ostringstream os;
  os << "--- a\n+++ b\n";
  bool gap = false;
  for (size_t k = 0; k < script.size(); ++k) {
    if (!show[k]) {
      gap = true;
      continue;
    }
    if (gap || k == 0) os << "@@ line " << k + 1 << " @@\n";
    gap = false;
    os << script[k].first << script[k].second << "\n";
  }
  return os.str();
}

Diff diffSubjects(const Subject& a, const Subject& b, const Profile* pa, const Profile* pb) {
  const std::vector<KernelRow> ra = kernelRows(a), rb = kernelRows(b);
  const auto pairs = lcs(signatures(ra), signatures(rb));
  auto cost = [](const Profile* p, size_t k) -> std::optional<double> {
    if (!p || k >= p->kernels.size()) return std::nullopt;
    return p->kernels[k].us;
  };
  auto label = [](const KernelRow& r) {
    return r.kind + " " + r.output + (r.site.empty() ? "" : "  " + r.site);
  };
  Diff d;
  if (pa) d.totalUsA = pa->totalUs();
  if (pb) d.totalUsB = pb->totalUs();
  size_t i = 0, j = 0;
  auto flush = [&](size_t untilA, size_t untilB) {
    for (; i < untilA; ++i)
      d.changes.push_back({KernelChange::Kind::Removed, i, std::nullopt, label(ra[i]), "",
                           cost(pa, i), std::nullopt});
    for (; j < untilB; ++j)
      d.changes.push_back({KernelChange::Kind::Added, std::nullopt, j, label(rb[j]), "",
                           std::nullopt, cost(pb, j)});
  };
  for (const auto& [pi, pj] : pairs) {
    flush(pi, pj);
    const std::string& wa = a.kernel(pi).wgsl;
    const std::string& wb = b.kernel(pj).wgsl;
    if (wa == wb)
      ++d.same;
    else
      d.changes.push_back({KernelChange::Kind::Changed, pi, pj, label(ra[pi]), unifiedDiff(wa, wb),
                           cost(pa, pi), cost(pb, pj)});
    i = pi + 1;
    j = pj + 1;
  }
  flush(ra.size(), rb.size());
  return d;
}

std::string diffText(const Subject& a, const Subject& b, const Diff& d) {
  size_t added = 0, removed = 0, changed = 0;
  for (const KernelChange& c : d.changes)
    (c.kind == KernelChange::Kind::Added     ? added
     : c.kind == KernelChange::Kind::Removed ? removed
                                             : changed)++;
  std::ostringstream os;
  os << "A: " << a.title << ", " << a.options << " (" << a.kernels.size() << " kernels)\n"
     << "B: " << b.title << ", " << b.options << " (" << b.kernels.size() << " kernels)\n"
     << d.same << " kernels the same, " << changed << " changed, " << added << " added, " << removed
     << " removed\n";
  char line[160];
  if (d.totalUsA && d.totalUsB) {
    std::snprintf(line, sizeof line, "serial GPU cost: A %.1f us, B %.1f us (%+.1f us, %+.1f%%)\n",
                  *d.totalUsA, *d.totalUsB, *d.totalUsB - *d.totalUsA,
                  *d.totalUsA > 0 ? 100 * (*d.totalUsB - *d.totalUsA) / *d.totalUsA : 0.0);
    os << line;
  }
  auto us = [](const std::optional<double>& v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.2f us", v.value_or(0));
    return v ? std::string(t) : std::string();
  };
  for (const KernelChange& c : d.changes) {
    os << "\n";
    switch (c.kind) {
      case KernelChange::Kind::Removed:
        os << "- removed A#" << *c.a << "  " << c.label << "  " << us(c.usA) << "\n";
        break;
      case KernelChange::Kind::Added:
        os << "+ added   B#" << *c.b << "  " << c.label << "  " << us(c.usB) << "\n";
        break;
      case KernelChange::Kind::Changed:
        os << "~ changed A#" << *c.a << " -> B#" << *c.b << "  " << c.label;
        if (c.usA && c.usB) os << "  " << us(c.usA) << " -> " << us(c.usB);
        os << "\n";
        std::istringstream in(c.wgslDiff);
        for (std::string l; std::getline(in, l);) os << "    " << l << "\n";
        break;
    }
  }
  return os.str();
}

}  // namespace tg_inspect
