// The safetensors format, strictly: an 8-byte little-endian header length N, N bytes of a JSON
// object (UTF-8, opening with '{', padded with trailing spaces at most), then the data section.
// Every entry but "__metadata__" (a string → string map) is {dtype, shape, data_offsets}; the
// [begin, end) ranges, sorted, tile the data section exactly — no holes, no overlaps, nothing
// after the last tensor — and each is shape product × dtype size bytes.
#include "tensorgrad/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <tuple>

namespace tg {

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("loadSafetensors: " + message);
}

// showShape's format, here so that the parser builds alone (for the fuzzer) without the core.
std::string show(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The reference implementation's bound: a header past it is not a checkpoint.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Bytes per element of every dtype the format defines; 0 for names it does not.
size_t dtypeBytes(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2},
      {"U16", 2},  {"F16", 2}, {"BF16", 2}, {"I32", 4},    {"U32", 4},     {"F32", 4},
      {"I64", 8},  {"U64", 8}, {"F64", 8}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

bool isIntegerDtype(const std::string& dtype) {
  return dtype == "BOOL" || dtype[0] == 'I' || dtype[0] == 'U';
}

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

Entry parseEntry(const std::string& name, const nlohmann::json& entry) {
  const std::string where = "tensor '" + name + "'";
  if (!entry.is_object()) fail(where + ": the entry is not a JSON object");
  for (const auto& [key, value] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      fail(where + ": unknown field '" + key + "' (expected dtype, shape, data_offsets)");
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) fail(where + ": the entry has no '" + key + "'");
  }
  Entry e;
  e.name = name;
  if (!entry["dtype"].is_string()) fail(where + ": dtype is not a string");
  e.dtype = entry["dtype"].get<std::string>();
  if (dtypeBytes(e.dtype) == 0) fail(where + " has unknown dtype '" + e.dtype + "'");
  const nlohmann::json& shape = entry["shape"];
  if (!shape.is_array()) fail(where + ": shape is not an array");
  uint64_t elements = 1;
  for (const auto& dim : shape) {
    // Integers only: a negative, fractional or non-numeric dim is a format violation.
    if (!dim.is_number_unsigned()) {
      fail(where + ": shape " + shape.dump() + " has a dim that is not a non-negative integer");
    }
    const uint64_t d = dim.get<uint64_t>();
    if (d > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(elements, d, &elements) ||
        elements > static_cast<uint64_t>(INT64_MAX)) {
      fail(where + ": shape " + shape.dump() + " overflows: its element count does not fit in int64");
    }
    e.shape.push_back(static_cast<int64_t>(d));
  }
  const nlohmann::json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    fail(where + ": data_offsets " + offsets.dump() + " is not [begin, end] of two non-negative integers");
  }
  e.begin = offsets[0].get<uint64_t>();
  e.end = offsets[1].get<uint64_t>();
  if (e.begin > e.end) {
    fail(where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
         "] are out of order (begin > end)");
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, dtypeBytes(e.dtype), &bytes) ||
      bytes > static_cast<uint64_t>(INT64_MAX)) {
    fail(where + ": shape " + show(e.shape) + " overflows: its byte size (elements x " +
         std::to_string(dtypeBytes(e.dtype)) + ") does not fit in int64");
  }
  if (e.end - e.begin != bytes) {
    fail(where + " has " + std::to_string(e.end - e.begin) + " bytes, but " + e.dtype +
         " shape " + show(e.shape) + " needs " + std::to_string(bytes));
  }
  return e;
}

}  // namespace

SafetensorsData loadSafetensors(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) fail("buffer too small to hold the 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | bytes[static_cast<size_t>(i)];
  if (headerLen > bytes.size() - 8) {
    fail("header length " + std::to_string(headerLen) + " exceeds the file (" +
         std::to_string(bytes.size()) + " bytes, " + std::to_string(bytes.size() - 8) +
         " after the length)");
  }
  if (headerLen > kMaxHeaderBytes) {
    fail("header length " + std::to_string(headerLen) + " is over the format's limit of " +
         std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const auto* headerBegin = bytes.data() + 8;
  const auto* headerEnd = headerBegin + headerLen;
  if (headerLen < 2 || *headerBegin != '{') fail("the header does not open with '{'");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(headerBegin, headerEnd);
  } catch (const std::exception& e) {
    fail(std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail("the header is not a JSON object");
  const uint64_t dataStart = 8 + headerLen;
  const uint64_t dataSize = bytes.size() - dataStart;

  std::vector<Entry> entries;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail("__metadata__ is not a JSON object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) fail("__metadata__ '" + key + "' is not a string");
      }
      continue;
    }
    entries.push_back(parseEntry(name, entry));
  }
  // Sorted by offsets, the tensors must tile the data section: each begins where the one before
  // ended, the first at 0 and the last ending at the file's end.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  uint64_t at = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin != at) {
      const std::string after = previous ? "tensor '" + previous->name + "' ends at " + std::to_string(at)
                                         : "the data section starts at 0";
      fail("tensor '" + e.name + "' begins at " + std::to_string(e.begin) + " but " + after +
           (e.begin > at ? " (a hole between tensors)" : " (overlapping tensors)"));
    }
    at = e.end;
    previous = &e;
  }
  if (at != dataSize) {
    fail(at > dataSize ? "tensor '" + previous->name + "' ends at " + std::to_string(at) +
                             ", past the data section's " + std::to_string(dataSize) + " bytes"
                       : "the data section has " + std::to_string(dataSize) +
                             " bytes but the tensors cover " + std::to_string(at) +
                             " (trailing bytes)");
  }

  SafetensorsData out;
  for (const Entry& e : entries) {
    out.shapes[e.name] = e.shape;
    if (e.dtype != "F32") {
      if (isIntegerDtype(e.dtype)) {
        out.skipped[e.name] = e.dtype;
        continue;
      }
      fail("tensor '" + e.name + "' has dtype " + e.dtype +
           "; tensorgrad is f32-only: convert the checkpoint to F32 before loading");
    }
    std::vector<float> values(static_cast<size_t>((e.end - e.begin) / 4));
    if (!values.empty()) std::memcpy(values.data(), bytes.data() + dataStart + e.begin, e.end - e.begin);
    out.tensors[e.name] = std::move(values);
  }
  return out;
}

SafetensorsData loadSafetensors(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    throw std::invalid_argument("loadSafetensors: cannot open " + file.string() + ": no such file");
  if (!std::filesystem::is_regular_file(status))
    throw std::invalid_argument("loadSafetensors: cannot open " + file.string() + ": not a regular file");
  std::vector<uint8_t> bytes;
  try {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::invalid_argument("loadSafetensors: cannot open " + file.string());
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::invalid_argument("loadSafetensors: cannot read " + file.string());
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    throw std::invalid_argument("loadSafetensors: cannot read " + file.string() + ": " + e.what());
  }
  return loadSafetensors(bytes);
}

}  // namespace tg
