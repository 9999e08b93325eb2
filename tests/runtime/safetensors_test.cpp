// loadSafetensors against the format's rules: every violation is a std::invalid_argument naming
// it (and the tensor), valid files with metadata, integer and empty tensors load.
#include <gtest/gtest.h>
#include <tensorgrad/tensorgrad.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace {

// A file from a header text (as given: its key order and spelling) and a data section.
std::vector<uint8_t> file(const std::string& header, size_t dataBytes, uint64_t lengthField = 0) {
  const uint64_t len = lengthField ? lengthField : header.size();
  std::string bytes(reinterpret_cast<const char*>(&len), 8);
  bytes += header;
  for (size_t i = 0; i < dataBytes; ++i) bytes.push_back(static_cast<char>(i));
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

void expectRejected(const std::vector<uint8_t>& bytes, const std::vector<std::string>& mentions) {
  try {
    tg::loadSafetensors(bytes);
    ADD_FAILURE() << "accepted; wanted: " << mentions.front();
  } catch (const std::invalid_argument& e) {
    for (const auto& m : mentions) EXPECT_NE(std::string(e.what()).find(m), std::string::npos) << e.what();
  }
}

std::string f32(const std::string& name, const std::string& shape, uint64_t begin, uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

TEST(Safetensors, ValidFilesLoad) {
  const auto st = tg::loadSafetensors(file(
      "{\"__metadata__\":{\"format\":\"pt\"}," + f32("b", "[2]", 16, 24) + "," + f32("a", "[2,2]", 0, 16) +
          ",\"e\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[24,24]},"
          "\"step\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[24,32]}}   ",
      32));
  EXPECT_EQ(st.tensors.at("a").size(), 4u);
  EXPECT_EQ(st.tensors.at("b").size(), 2u);
  EXPECT_TRUE(st.tensors.at("e").empty());
  EXPECT_EQ(st.shapes.at("e"), (tg::Shape{0, 3}));
  EXPECT_EQ(st.skipped.at("step"), "I64");
  EXPECT_TRUE(tg::loadSafetensors(file("{}", 0)).tensors.empty());
}

TEST(Safetensors, OffsetsMustTileTheDataSection) {
  expectRejected(file("{" + f32("a", "[2]", 0, 8) + "," + f32("b", "[2]", 4, 12) + "}", 12),
                 {"'b' begins at 4", "'a' ends at 8", "overlapping"});
  expectRejected(file("{" + f32("a", "[1]", 0, 4) + "," + f32("b", "[1]", 8, 12) + "}", 12),
                 {"'b' begins at 8", "hole"});
  expectRejected(file("{" + f32("a", "[1]", 4, 8) + "}", 8), {"'a' begins at 4", "starts at 0", "hole"});
  expectRejected(file("{" + f32("a", "[1]", 8, 4) + "}", 8), {"'a'", "out of order"});
  expectRejected(file("{" + f32("a", "[1]", 0, 4) + "}", 8), {"trailing bytes"});
  expectRejected(file("{" + f32("a", "[2]", 0, 8) + "}", 4), {"'a' ends at 8", "past the data section"});
  expectRejected(file("{" + f32("a", "[2]", 0, 4) + "}", 4), {"'a' has 4 bytes", "needs 8"});
  expectRejected(file("{" + f32("a", "[1]", 0, 4) + "," + f32("b", "[1]", 0, 4) + "}", 4), {"overlapping"});
}

TEST(Safetensors, ShapesMustBeNonNegativeIntegersThatDoNotOverflow) {
  expectRejected(file("{" + f32("a", "[-1]", 0, 0) + "}", 0), {"'a'", "[-1]", "not a non-negative integer"});
  expectRejected(file("{" + f32("a", "[1.5]", 0, 4) + "}", 4), {"'a'", "not a non-negative integer"});
  expectRejected(file("{" + f32("a", "[\"2\"]", 0, 8) + "}", 8), {"'a'", "not a non-negative integer"});
  expectRejected(file("{" + f32("a", "[4294967296,4294967296]", 0, 0) + "}", 0), {"'a'", "overflows"});
  expectRejected(file("{" + f32("a", "[2305843009213693952]", 0, 0) + "}", 0), {"'a'", "overflows"});
  expectRejected(file("{" + f32("a", "2", 0, 8) + "}", 8), {"'a'", "shape is not an array"});
}

TEST(Safetensors, HeaderAndEntryViolationsAreNamed) {
  expectRejected(file("{}", 0, 1000), {"header length 1000 exceeds the file"});
  expectRejected(file("{}", 0, ~uint64_t{0}), {"exceeds the file"});
  expectRejected(file("[]", 0), {"does not open with '{'"});
  expectRejected(file("{\"a\":", 0), {"not valid JSON"});
  expectRejected(file("{\"a\":{\"dtype\":\"X9\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4), {"'a'", "unknown dtype 'X9'"});
  expectRejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4), {"'a'", "no 'data_offsets'"});
  expectRejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4), {"'a'", "unknown field 'x'"});
  expectRejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4), {"'a'", "data_offsets"});
  expectRejected(file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 4), {"'a'", "data_offsets"});
  expectRejected(file("{\"__metadata__\":{\"n\":1}}", 0), {"__metadata__ 'n' is not a string"});
  expectRejected(file("{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4), {"'a' has 4 bytes", "needs 8"});
}

TEST(Safetensors, PathsThatAreNotRegularFilesAreTheDocumentedError) {
  const auto dir = std::filesystem::temp_directory_path() / ("tg_st_dir_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  try {
    tg::loadSafetensors(dir);
    ADD_FAILURE() << "a directory was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not std::invalid_argument: " << e.what();
  }
  std::filesystem::remove_all(dir);
  EXPECT_THROW(tg::loadSafetensors(dir / "missing.safetensors"), std::invalid_argument);
}

}  // namespace
