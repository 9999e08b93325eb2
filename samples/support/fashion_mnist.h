// Fashion-MNIST from Debian's dataset-fashion-mnist: 60,000 training and 10,000 test images of
// 28×28 grey pixels with labels 0–9, as f32 pixels in [0, 1] and i32 labels.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace tg_samples {

struct ImageSet {
  int64_t count = 0, rows = 0, cols = 0;
  std::vector<float> pixels;    // [count, rows, cols], value / 255
  std::vector<int32_t> labels;  // [count]
  int64_t pixelsPerImage() const { return rows * cols; }
};

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr std::array<std::string_view, 10> kFashionClasses = {
    "T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Boot"};

enum class Split { Train, Test };

// Reads <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; `limit` > 0 keeps the first
// `limit` images. Throws MissingData (naming the package) when the files are not there, DataError
// when they are malformed or images and labels disagree.
ImageSet loadFashionMnist(Split split, const std::filesystem::path& dir = kFashionMnistDir, int64_t limit = 0);

// Builds an ImageSet from IDX image ([n, rows, cols]) and label ([n], values < 10) files.
ImageSet loadIdxImages(const std::filesystem::path& images, const std::filesystem::path& labels, int64_t limit = 0);

}  // namespace tg_samples
