#include "fashion_mnist.h"

#include "errors.h"
#include "idx.h"

namespace tg_samples {

ImageSet loadIdxImages(const std::filesystem::path& images, const std::filesystem::path& labels, int64_t limit) {
  const IdxArray im = readIdx(images);
  const IdxArray lb = readIdx(labels);
  if (im.dims.size() != 3) throw DataError(images.string() + ": expected 3 dimensions (images), found " + std::to_string(im.dims.size()));
  if (lb.dims.size() != 1) throw DataError(labels.string() + ": expected 1 dimension (labels), found " + std::to_string(lb.dims.size()));
  if (im.dims[0] != lb.dims[0]) {
    throw DataError(images.string() + " has " + std::to_string(im.dims[0]) + " images but " + labels.string() + " has " +
                    std::to_string(lb.dims[0]) + " labels");
  }
  ImageSet s;
  s.count = im.dims[0];
  if (limit > 0 && limit < s.count) s.count = limit;
  s.rows = im.dims[1];
  s.cols = im.dims[2];
  const auto n = static_cast<size_t>(s.count * s.rows * s.cols);
  s.pixels.resize(n);
  for (size_t i = 0; i < n; ++i) s.pixels[i] = static_cast<float>(im.data[i]) / 255.f;
  s.labels.resize(static_cast<size_t>(s.count));
  for (size_t i = 0; i < s.labels.size(); ++i) {
    if (lb.data[i] > 9) throw DataError(labels.string() + ": byte " + std::to_string(8 + i) + ": label " + std::to_string(lb.data[i]) + " is not 0-9");
    s.labels[i] = lb.data[i];
  }
  return s;
}

ImageSet loadFashionMnist(Split split, const std::filesystem::path& dir, int64_t limit) {
  const std::string prefix = split == Split::Train ? "train" : "t10k";
  auto find = [&](const std::string& stem) {
    for (const std::string& name : {stem + ".gz", stem}) {
      if (std::filesystem::exists(dir / name)) return dir / name;
    }
    throw MissingData("Fashion-MNIST (" + (dir / (stem + ".gz")).string() + ")", "dataset-fashion-mnist");
  };
  const auto images = find(prefix + "-images-idx3-ubyte");
  const auto labels = find(prefix + "-labels-idx1-ubyte");
  return loadIdxImages(images, labels, limit);
}

}  // namespace tg_samples
