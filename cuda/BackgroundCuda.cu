// The local pivot on the device (see BackgroundCuda.cuh): the backend object behind DeviceLocalPivot, which
// uploads the image, runs the cells' sigma clipping behind the upload (BackgroundCellPipeline.cuh) and builds
// a = I - bkg - N rms over the ROI in device memory (the kernels and their exactness: BackgroundKernels.cuh).
#include "cuda/BackgroundCuda.cuh"

#include "cuda/BackgroundCellPipeline.cuh"
#include "cuda/BackgroundKernels.cuh"
#include "cuda/CudaToolkit.cuh"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"
#include "core/io/Image.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace glint::cuda::background {

namespace {

std::size_t sampleSize(const Image& image) { return image.visit([](const auto* p) { return sizeof(*p); }); }

class CudaLocalPivot final : public DeviceLocalPivot {
public:
    bool accepts(const Image& image, const BrightestParams& params) override {
        const int mesh = params.mesh;
        if (mesh < 2 || mesh * mesh > kMaxCell || mesh > image.width() || mesh > image.height()) return false;
        if ((image.width() + mesh - 1) / mesh > kMaxCellsX) return false;
        if (!cudaDevice().usable) return false;
        const std::size_t pixels = static_cast<std::size_t>(image.width()) * image.height();
        const std::size_t need = pixels * (sampleSize(image) + 2 + sizeof(double)) + (std::size_t{64} << 20);
        if (lease_) return (**lease_).available() >= 2 * need;
        Workspace::Lease probe(workspace());
        return probe->available() >= 2 * need;
    }

    std::vector<BackgroundCell> cells(const Image& image, const std::vector<std::uint8_t>& excluded,
                                      const BackgroundParams& params, JobControl& job) override {
        if (!lease_) lease_ = std::make_unique<Workspace::Lease>(workspace());
        Workspace& ws = **lease_;
        const auto start = std::chrono::steady_clock::now();
        image_ = &image;
        W_ = image.width();
        H_ = image.height();
        const std::size_t pixels = static_cast<std::size_t>(W_) * H_;
        const int mesh = params.mesh, nx = (W_ + mesh - 1) / mesh, ny = (H_ + mesh - 1) / mesh;
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        ws.require(pixels * (sampleSize(image) + 2) + cells * sizeof(BackgroundCell), "the background model");
        samples_ = ws.get("image", pixels * sampleSize(image));
        // The masks (when there are any) first, then the samples in bands through the pinned staging, each
        // band's cells computed while the next bands travel.
        blank_ = nullptr;
        if (image.hasBlanks()) {
            blank_ = ws.get<std::uint8_t>("blank", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(blank_, image.blankMask().data(), pixels, cudaMemcpyHostToDevice));
        }
        std::uint8_t* mask = nullptr;
        if (!excluded.empty()) {
            mask = ws.get<std::uint8_t>("excluded", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(mask, excluded.data(), pixels, cudaMemcpyHostToDevice));
        }
        auto* out = ws.get<BackgroundCell>("cells", cells);
        CellArgs a{samples_, blank_, mask, W_, H_, mesh, nx, params.clipSigma, params.maxIterations, mesh * mesh, out};
        CellPipeline& pipe = ws.keep<CellPipeline>();
        float kernelMs = 0.0f;
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            const std::size_t smem = cellSmem<T>(mesh * mesh);
            GLINT_CUDA_CHECK(cudaFuncSetAttribute(cellKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
            kernelMs = pipe.run(p, samples_, W_, H_, mesh, ny, [&](int firstRow, int rows, cudaStream_t stream) {
                cellKernel<T><<<static_cast<unsigned>(rows * nx), 32, smem, stream>>>(a, firstRow * nx);
                GLINT_CUDA_CHECK_LAUNCH();
            });
        });
        std::vector<BackgroundCell> host(cells);
        GLINT_CUDA_CHECK(cudaMemcpy(host.data(), out, cells * sizeof(BackgroundCell), cudaMemcpyDeviceToHost));
        job.timing().add("upload and cells", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        job.timing().add("background cells", kernelMs);
        return host;
    }

    void upload(const Image& image, JobControl& job) override {
        if (!lease_) lease_ = std::make_unique<Workspace::Lease>(workspace());
        Workspace& ws = **lease_;
        EventTimer timer;
        timer.begin();
        image_ = &image;
        W_ = image.width();
        H_ = image.height();
        const std::size_t pixels = static_cast<std::size_t>(W_) * H_;
        ws.require(pixels * (sampleSize(image) + 1), "the image");
        samples_ = ws.get("image", pixels * sampleSize(image));
        image.visit([&](const auto* p) {
            GLINT_CUDA_CHECK(cudaMemcpy(samples_, p, pixels * sizeof(*p), cudaMemcpyHostToDevice));
        });
        blank_ = nullptr;
        if (image.hasBlanks()) {
            blank_ = ws.get<std::uint8_t>("blank", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(blank_, image.blankMask().data(), pixels, cudaMemcpyHostToDevice));
        }
        timer.mark("upload");
        timer.report(job);
    }

    DeviceDerivedStats derive(const BackgroundMap& model, const PixelRect& roi, double threshold,
                              const std::vector<std::uint8_t>& roiMask, JobControl& job) override {
        if (!lease_ || !image_) throw std::logic_error("CudaLocalPivot::derive before cells() or upload()");
        Workspace& ws = **lease_;
        EventTimer timer;
        timer.begin();
        const std::size_t n = static_cast<std::size_t>(roi.width) * roi.height;
        roi_ = roi;
        derived_ = ws.get<double>("derived", n);
        DeviceDerivedStats stats;
        stats.samples = std::shared_ptr<const void>(derived_, [](const void*) {});
        if (model.empty()) throw std::logic_error("CudaLocalPivot::derive: empty model");
        const int nx = model.cellsX(), ny = model.cellsY();
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        // The model: knots, grids and second derivatives, in one upload.
        std::vector<double> m;
        m.reserve(nx + ny + 4 * cells);
        for (const auto* v : {&model.knotsX(), &model.knotsY(), &model.cellBackground(), &model.cellRms(), &model.backgroundD2(), &model.rmsD2()})
            m.insert(m.end(), v->begin(), v->end());
        double* dm = ws.get<double>("model", m.size());
        GLINT_CUDA_CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(double), cudaMemcpyHostToDevice));
        std::uint8_t* mask = nullptr;
        if (!roiMask.empty()) {
            mask = ws.get<std::uint8_t>("roi mask", n);
            GLINT_CUDA_CHECK(cudaMemcpy(mask, roiMask.data(), n, cudaMemcpyHostToDevice));
        }
        double* rowSums = ws.get<double>("row sums", static_cast<std::size_t>(roi.height) + 1);
        auto* counts = ws.get<unsigned long long>("counts", 3);
        GLINT_CUDA_CHECK(cudaMemset(counts, 0, 3 * sizeof(unsigned long long)));
        RowArgs a{samples_, W_, roi.x, roi.y, roi.width, mask, nx, ny, dm, dm + nx, dm + nx + ny, dm + nx + ny + cells,
                  dm + nx + ny + 2 * cells, dm + nx + ny + 3 * cells, threshold, derived_, rowSums, counts, counts + 2};
        image_->visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            rowKernel<T><<<static_cast<unsigned>(roi.height), kRowThreads>>>(a);
        });
        GLINT_CUDA_CHECK_LAUNCH();
        positiveSumKernel<<<1, 1>>>(rowSums, roi.height, rowSums + roi.height);
        GLINT_CUDA_CHECK_LAUNCH();
        timer.mark("local pivot");
        unsigned long long c[3];
        double positive = 0.0;
        GLINT_CUDA_CHECK(cudaMemcpy(c, counts, sizeof c, cudaMemcpyDeviceToHost));
        GLINT_CUDA_CHECK(cudaMemcpy(&positive, rowSums + roi.height, sizeof(double), cudaMemcpyDeviceToHost));
        timer.report(job);
        stats.included = c[0];
        stats.nonFinite = c[1];
        stats.maxAbs = c[0] > c[1] ? bgValueOfKey(c[2]) : 0.0;
        stats.positiveSum = positive;
        return stats;
    }

    std::vector<double> derivedSamples() override {
        std::vector<double> out(static_cast<std::size_t>(roi_.width) * roi_.height);
        if (derived_ && !out.empty())
            GLINT_CUDA_CHECK(cudaMemcpy(out.data(), derived_, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
        return out;
    }

private:
    static WorkspacePool& workspace() { return Workspace::shared("local pivot"); }

    std::unique_ptr<Workspace::Lease> lease_;
    const Image* image_ = nullptr;
    int W_ = 0, H_ = 0;
    void* samples_ = nullptr;
    std::uint8_t* blank_ = nullptr;
    double* derived_ = nullptr;
    PixelRect roi_{};
};

} // namespace

std::unique_ptr<DeviceLocalPivot> makeCudaLocalPivot() { return std::make_unique<CudaLocalPivot>(); }

} // namespace glint::cuda::background
