// samples/support: the IDX reader and Fashion-MNIST loader against committed fixtures (and
// malformed files, each error naming the file and byte), word lists, the batch sampler, the
// classifier evaluation, plots and PNG output, progress formatting, results.json and the parity
// comparison.
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/app.h"
#include "support/classify.h"
#include "support/errors.h"
#include "support/fashion_mnist.h"
#include "support/grid.h"
#include "support/idx.h"
#include "support/parity.h"
#include "support/plot.h"
#include "support/progress.h"
#include "support/results.h"
#include "support/sampler.h"
#include "support/words.h"

namespace {

using namespace tg_samples;
const std::filesystem::path kFixtures = TG_SAMPLES_FIXTURES;

std::filesystem::path tempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tg_samples_test_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The message of the DataError that `f` throws ("" when it throws none).
template <class F>
std::string dataError(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(Idx, ReadsPlainAndGzippedFiles) {
  for (const char* name : {"images_3x2x3.idx", "images_3x2x3.idx.gz"}) {
    const IdxArray a = readIdx(kFixtures / name);
    EXPECT_EQ(a.dims, (std::vector<uint32_t>{3, 2, 3})) << name;
    ASSERT_EQ(a.data.size(), 18u) << name;
    for (size_t k = 0; k < 18; ++k) EXPECT_EQ(a.data[k], ((k / 6) * 7 + (k % 6) * 13) % 256) << name << " " << k;
  }
}

TEST(Idx, MalformedFilesNameTheFileAndByte) {
  struct Case {
    const char* file;
    const char* message;
  };
  const Case cases[] = {
      {"truncated.idx", "byte 16: truncated: the data needs 18 bytes, the file ends after 10"},
      {"truncated_header.idx", "byte 8: truncated: a dimension needs 4 bytes, the file ends after 1"},
      {"wrong_magic.idx", "byte 0: not an IDX file (magic starts 31 0, expected 0 0)"},
      {"float_type.idx", "byte 2: IDX type 0x0d is not supported"},
      {"trailing.idx", "byte 11: trailing bytes after 3 values"},
      {"zero_dim.idx", "byte 4: dimension 0 is 0"},
      {"huge_dims.idx", "byte 8: the dimensions' product is too large"},
      {"corrupt.idx.gz", "incorrect data check"},
      {"truncated.idx.gz", "truncated compressed data"},
      {"no_such_file.idx", "no_such_file.idx: no such file"},
  };
  for (const Case& c : cases) {
    const std::string message = dataError([&] { readIdx(kFixtures / c.file); });
    EXPECT_NE(message.find(c.file), std::string::npos) << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.file << ": " << message;
  }
}

TEST(FashionMnist, LoadsAFolderOfGzippedAndPlainFiles) {
  const ImageSet train = loadFashionMnist(Split::Train, kFixtures / "fashion");
  EXPECT_EQ(train.count, 5);
  EXPECT_EQ(train.rows, 4);
  EXPECT_EQ(train.cols, 4);
  EXPECT_EQ(train.labels, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(train.pixels.size(), 80u);
  EXPECT_FLOAT_EQ(train.pixels[17], static_cast<float>((31 + 3) % 256) / 255.f);
  const ImageSet test = loadFashionMnist(Split::Test, kFixtures / "fashion", 1);
  EXPECT_EQ(test.count, 1);
  EXPECT_EQ(test.labels, (std::vector<int32_t>{9}));
}

TEST(FashionMnist, AMissingFolderNamesThePackage) {
  try {
    loadFashionMnist(Split::Train, kFixtures / "nowhere");
    FAIL() << "no MissingData";
  } catch (const MissingData& e) {
    EXPECT_EQ(e.package(), "dataset-fashion-mnist");
    EXPECT_NE(std::string(e.what()).find("apt-get install dataset-fashion-mnist"), std::string::npos) << e.what();
  }
}

TEST(FashionMnist, ImagesAndLabelsMustAgree) {
  EXPECT_NE(dataError([] { loadIdxImages(kFixtures / "images_3x2x3.idx", kFixtures / "labels_4.idx"); })
                .find("has 3 images but"),
            std::string::npos);
  EXPECT_NE(dataError([] { loadIdxImages(kFixtures / "images_3x2x3.idx", kFixtures / "labels_bad.idx"); })
                .find("labels_bad.idx: byte 9: label 12 is not 0-9"),
            std::string::npos);
  EXPECT_NE(dataError([] { loadIdxImages(kFixtures / "labels_3.idx", kFixtures / "labels_3.idx"); })
                .find("expected 3 dimensions"),
            std::string::npos);
  const ImageSet s = loadIdxImages(kFixtures / "images_3x2x3.idx.gz", kFixtures / "labels_3.idx");
  EXPECT_EQ(s.labels, (std::vector<int32_t>{2, 0, 9}));
}

TEST(Words, CapitalisedKeepsProperNamesLowercasedOnce) {
  EXPECT_EQ(readWords(kFixtures / "words.txt", "wamerican", 2, 12, WordCase::Capitalised),
            (std::vector<std::string>{"apple", "zoe"}));
  EXPECT_NE(dataError([] { readWords(kFixtures / "words.txt", "wamerican", 20, 30, WordCase::Capitalised); })
                .find("no capitalised"),
            std::string::npos);
}

TEST(Words, KeepsPlainLowercaseWordsOnceInFileOrder) {
  EXPECT_EQ(readWords(kFixtures / "words.txt", "wamerican", 2, 12),
            (std::vector<std::string>{"apple", "zoo", "banana", "kiwi"}));
  EXPECT_EQ(readWords(kFixtures / "words.txt", "wamerican", 6, 6), (std::vector<std::string>{"banana"}));
  EXPECT_NE(dataError([] { readWords(kFixtures / "words.txt", "wamerican", 20, 30); }).find("no lowercase a-z words"),
            std::string::npos);
  try {
    readWords(kFixtures / "no_words", "wamerican", 1, 5);
    FAIL() << "no MissingData";
  } catch (const MissingData& e) {
    EXPECT_EQ(e.package(), "wamerican");
  }
  EXPECT_EQ(letterToken('a'), 1);
  EXPECT_EQ(letterToken('z'), 26);
  EXPECT_EQ(tokenLetter(26), 'z');
  EXPECT_EQ(tokenLetter(0), '.');
}

TEST(Sampler, EpochsArePermutationsAndSeedsRepeat) {
  BatchSampler a(10, 3), b(10, 3), c(10, 4);
  std::vector<size_t> epoch = a.next(10);
  std::vector<size_t> sorted = epoch;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(b.next(10), epoch);
  EXPECT_NE(c.next(10), epoch);
  EXPECT_EQ(a.epoch(), 0u);
  a.next(1);
  EXPECT_EQ(a.epoch(), 1u);
  EXPECT_THROW(BatchSampler(0, 1), std::invalid_argument);
}

TEST(Classify, CountsAccuracyAndConfusionOverPaddedBatches) {
  const ImageSet s = loadFashionMnist(Split::Train, kFixtures / "fashion");  // labels 0..4
  int calls = 0;
  // Predicts class 0 for every image whose first pixel is below 0.3, else class 4; batch 2 of 5.
  const Classification c = classify(s, 5, 2, 5, [&](std::vector<float> x) {
    ++calls;
    EXPECT_EQ(x.size(), 32u);
    std::vector<float> scores(10, 0.f);
    for (int i = 0; i < 2; ++i) scores[static_cast<size_t>(i * 5 + (x[static_cast<size_t>(i * 16)] < 0.3f ? 0 : 4))] = 1;
    return scores;
  });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(c.evaluated, 5);
  // First pixels: 0, 31, 62, 93, 124 (/255): only image 0 (label 0) is below 0.3·255 = 76.5 → 0,
  // 31 → 0 (label 1, wrong), 62 → 0 (label 2, wrong), 93, 124 → 4 (label 3 wrong, label 4 right).
  EXPECT_EQ(c.correct, 2);
  EXPECT_EQ(c.confusion[0 * 5 + 0], 1);
  EXPECT_EQ(c.confusion[1 * 5 + 0], 1);
  EXPECT_EQ(c.confusion[3 * 5 + 4], 1);
  EXPECT_EQ(c.confusion[4 * 5 + 4], 1);
  EXPECT_THROW(classify(s, 5, 2, 5, [](std::vector<float>) { return std::vector<float>(3); }), std::runtime_error);
}

// Reads a PNG back with libpng: width, height and the RGB bytes.
Image readPng(const std::filesystem::path& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  EXPECT_NE(png_image_begin_read_from_file(&png, path.c_str()), 0) << path;
  png.format = PNG_FORMAT_RGB;
  std::vector<uint8_t> rgb(PNG_IMAGE_SIZE(png));
  EXPECT_NE(png_image_finish_read(&png, nullptr, rgb.data(), 0, nullptr), 0);
  Image img(static_cast<int>(png.width), static_cast<int>(png.height));
  for (int y = 0; y < img.height(); ++y) {
    for (int x = 0; x < img.width(); ++x) {
      const size_t at = (static_cast<size_t>(y) * png.width + static_cast<size_t>(x)) * 3;
      img.set(x, y, {rgb[at], rgb[at + 1], rgb[at + 2]});
    }
  }
  return img;
}

TEST(Pictures, PngRoundTripsAndTextDrawsPixels) {
  const auto dir = tempDir("png");
  Image img(40, 20);
  img.text(2, 2, "A1", colors::black);
  img.fillRect(30, 10, 5, 5, colors::red);
  writePng(dir / "t.png", img);
  const Image back = readPng(dir / "t.png");
  ASSERT_EQ(back.width(), 40);
  ASSERT_EQ(back.height(), 20);
  EXPECT_EQ(back.rgb(), img.rgb());
  EXPECT_EQ(back.at(2 + 2, 2), colors::black);   // the top of 'A' (".###.")
  EXPECT_EQ(back.at(2, 2), colors::white);
  EXPECT_EQ(back.at(32, 12), colors::red);
  EXPECT_THROW(writePng(dir / "no_dir" / "t.png", img), std::runtime_error);
  EXPECT_THROW(Image(0, 5), std::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST(Pictures, PlotsGridsAndMatrices) {
  EXPECT_EQ(niceTicks(0, 1, 6), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(niceTicks(3, 97, 5), (std::vector<double>{20, 40, 60, 80}));
  const auto dir = tempDir("plot");
  std::vector<float> losses;
  for (int i = 0; i < 100; ++i) losses.push_back(2.f / static_cast<float>(i + 1));
  writeLossCurve(dir / "loss.png", losses, "LOSS");
  const Image loss = readPng(dir / "loss.png");
  EXPECT_EQ(loss.width(), 640);
  size_t blue = 0;  // the moving average was drawn
  for (int y = 0; y < loss.height(); ++y) {
    for (int x = 0; x < loss.width(); ++x) blue += loss.at(x, y) == colors::blue ? 1 : 0;
  }
  EXPECT_GT(blue, 300u);
  const Image grid = imageGrid(std::vector<float>(5 * 4, 1.f), {.tileH = 2, .tileW = 2, .cols = 3, .scale = 1, .gap = 1});
  EXPECT_EQ(grid.width(), 3 * 3 + 1);
  EXPECT_EQ(grid.height(), 1 + 2 * 3);
  EXPECT_EQ(grid.at(1, 1), colors::white);
  EXPECT_THROW(imageGrid(std::vector<float>(7), {.tileH = 2, .tileW = 2}), std::invalid_argument);
  EXPECT_THROW(matrixPicture({1, 2, 3}, 2, {}, "", "", ""), std::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(formatDuration(0.25), "250ms");
  EXPECT_EQ(formatDuration(12.34), "12.3s");
  EXPECT_EQ(formatDuration(65), "1m05s");
  EXPECT_EQ(formatDuration(3700), "1h01m");
  EXPECT_EQ(formatDuration(NAN), "?");
}

TEST(Results, WritesLossesMetricsAndPictures) {
  const auto dir = tempDir("results");
  CommonOptions o{.steps = 2, .seed = 9, .out = dir};
  Results r("demo", o, "lavapipe");
  LoopStats s{.losses = {1.5f, NAN}, .seconds = 2};
  r.loop(s);
  r.metric("accuracy", 0.5);
  r.picture("loss.png", "the loss");
  std::ifstream f(r.write());
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["app"], "demo");
  EXPECT_EQ(j["seed"], 9);
  EXPECT_EQ(j["losses"][0], 1.5);
  EXPECT_TRUE(j["losses"][1].is_null());  // NaN is not JSON
  EXPECT_EQ(j["msPerStep"], 1000.0);
  EXPECT_EQ(j["metrics"]["accuracy"], 0.5);
  EXPECT_EQ(j["pictures"]["loss.png"], "the loss");
  std::filesystem::remove_all(dir);
}

TEST(Parity, ComparesLossBitsWithTheGolden) {
  const auto golden = std::filesystem::path(TG_PARITY_GOLDEN_DIR) / "mlp_sin.json";
  ASSERT_EQ(goldenSteps(golden), 30);
  std::ifstream f(golden);
  const nlohmann::json j = nlohmann::json::parse(f);
  std::vector<float> losses;
  for (const auto& bits : j["losses"]) {
    const auto u = static_cast<uint32_t>(std::stoul(bits.get<std::string>(), nullptr, 16));
    losses.push_back(std::bit_cast<float>(u));
  }
  EXPECT_EQ(compareWithGolden(golden, losses), 0);
  losses[7] = std::nextafter(losses[7], 1.f);  // one ulp
  EXPECT_EQ(compareWithGolden(golden, losses), 1);
  losses.pop_back();
  losses[7] = std::nextafter(losses[7], 0.f);
  EXPECT_EQ(compareWithGolden(golden, losses), 1);  // a step short
  EXPECT_THROW(goldenSteps(kFixtures / "words.txt"), std::runtime_error);
  // The suite's synthetic feeds: pixels are 0 or in [0, 1), labels below the class count.
  tg::Mulberry32 rng(1);
  for (float p : synthetic::pixels(rng, 100)) EXPECT_TRUE(p >= 0 && p < 1);
  for (int32_t l : synthetic::labels(rng, 100, 7)) EXPECT_TRUE(l >= 0 && l < 7);
}

}  // namespace

namespace {

// An app's flags parsed from `args`, then its CPU-device defaults applied.
tg_samples::CommonOptions parseWithCpuDefaults(std::vector<std::string> args, int64_t& batch) {
  CLI::App app{"test"};
  tg_samples::CommonOptions o{.steps = 600};
  tg_samples::addCommonOptions(app, o);
  app.add_option("--batch", batch);
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector given in reverse order
  app.parse(args);
  tg_samples::useCpuDefault(app, "--steps", o.steps, 300);
  tg_samples::useCpuDefault(app, "--batch", batch, int64_t{64});
  return o;
}

TEST(App, CpuDefaultsApplyOnlyToFlagsNotGiven) {
  int64_t batch = 128;
  EXPECT_EQ(parseWithCpuDefaults({}, batch).steps, 300);
  EXPECT_EQ(batch, 64);
  batch = 128;
  EXPECT_EQ(parseWithCpuDefaults({"--steps", "5"}, batch).steps, 5);
  EXPECT_EQ(batch, 64);
  batch = 128;
  EXPECT_EQ(parseWithCpuDefaults({"--batch", "128"}, batch).steps, 300);
  EXPECT_EQ(batch, 128);
}

TEST(App, OnCpuDeviceIsTrueForLavapipe) {
  const tg::WebGPUSupport gpu = tg::checkWebGPU({});
  ASSERT_TRUE(gpu.ok) << gpu.message;
  EXPECT_EQ(tg_samples::onCpuDevice({}), gpu.cpu);
  EXPECT_TRUE(tg_samples::onCpuDevice({.device = "llvmpipe"}));
}

}  // namespace
