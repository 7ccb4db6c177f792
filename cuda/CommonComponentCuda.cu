// The cuda backend of the common component. The host codes the images (as the cpu backend does), then
// the GPU finds a strong first component from patch seeds, bounds every offset that could beat it by
// the count of pixels whose quantised codes agree (bit planes and popcounts), sorts the offsets whose
// bound beats the best, and, in batches in bound order, counts their exact matches and labels those whose
// count still beats the best (one block per offset, strips in shared memory), until no bound can.
#include "cuda/CommonComponentCuda.h"

#include "cuda/CommonComponentKernels.cuh"
#include "cuda/CommonComponentRegistration.cuh"
#include "cuda/CudaToolkit.cuh"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <limits>
#include <thread>
#include <vector>

namespace glint::cuda {
namespace common {

namespace {

using namespace glint::common_component;

// Cancel reaches running kernels through a device flag that a second stream sets while they run.
class CancelFlag {
public:
    CancelFlag() {
        *host_.get() = 0;
        // Cleared and finished before any kernel of the (non-blocking) work stream can read it.
        GLINT_CUDA_CHECK(cudaMemsetAsync(flag_.get(), 0, sizeof(int), control_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(control_));
    }
    const volatile int* device() const { return flag_.get(); }
    void reset() {
        raised_ = false;
        *host_.get() = 0;
        GLINT_CUDA_CHECK(cudaMemsetAsync(flag_.get(), 0, sizeof(int), control_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(control_));
    }
    void raise() {
        if (raised_) return;
        raised_ = true;
        *host_.get() = 1;
        GLINT_CUDA_CHECK(cudaMemcpyAsync(flag_.get(), host_.get(), sizeof(int), cudaMemcpyHostToDevice, control_));
    }
    bool raised() const { return raised_; }

private:
    DeviceBuffer<int> flag_{1};
    PinnedBuffer<int> host_{1};
    Stream control_;
    bool raised_ = false;
};

// What one run needs on the device is kept from run to run in the workspace (buffers only grow):
// repeated runs, as in the window or the bench, then pay for no allocation. One run at a time uses it
// (the Search holds its lease); the stream, the timer's events and the cancel flag are kept with it.
WorkspacePool& workspace() { return Workspace::shared("common component"); }

struct Runtime {
    Stream stream;
    EventTimer timer{stream};
    CancelFlag cancel;
    CufftPlanPair fftPlans; // the FFT bound: a batch of D2Z, one Z2D
    PinnedBuffer<std::uint8_t> staging; // the codes on their way up
};

template <class T, bool Span>
class Search {
public:
    Search(const CommonCoding& coding, const CommonComponentParams& params, JobControl& job)
        : c_(coding), job_(job),
          range_(offsetRange(coding.widthA, coding.heightA, coding.widthB, coding.heightB, params.maxShift)),
          candidates_(params.candidates) {}

    CommonComponentResult run() {
        stats_.offsets = range_.count();
        cancel_.reset();
        upload();
        configureLabeller();
        seed();
        job_.setProgress(0.05);
        if (c_.twoPartitions) searchWith<8>();
        else searchWith<4>();
        job_.timing().add("kernel", kernelMs_);
        auto step = job_.timing().scope("mask");
        CommonComponentResult result = componentFromSeed(c_, bestDx_, bestDy_, seedX_, seedY_, best_);
        result.stats = stats_;
        result.candidateSizes = candidateSizes_;
        return result;
    }

private:
    // Ends the step timed since timer_.begin() and waits for the stream, polling so that a Cancel stops
    // the kernels at their next offset or strip.
    double wait(const char* step) {
        timer_.mark(step);
        // Most steps take well under a millisecond: for the first 2 ms the poll only yields (a 50 us sleep
        // wakes 50-100 us late, for each of the ~20-30 waits of a run); longer steps sleep between polls.
        const auto since = std::chrono::steady_clock::now();
        while (!timer_.reached()) {
            if (job_.cancelRequested()) cancel_.raise();
            if (std::chrono::steady_clock::now() - since < std::chrono::milliseconds(2)) std::this_thread::yield();
            else std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        GLINT_CUDA_CHECK(cudaGetLastError());
        if (cancel_.raised()) throw Cancelled();
        job_.throwIfCancelled();
        const float ms = timer_.report(job_);
        kernelMs_ += ms;
        return ms;
    }

    // The workspace's buffer `name`, grown to n elements, with src[0..n) queued for upload into it.
    template <class U>
    U* copyTo(const char* name, const U* src, std::size_t n) {
        U* dst = ws_->get<U>(name, n);
        if (n) GLINT_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(U), cudaMemcpyHostToDevice, stream_));
        return dst;
    }
    template <class U>
    U fetch(const U* src) {
        U v{};
        GLINT_CUDA_CHECK(cudaMemcpyAsync(&v, src, sizeof(U), cudaMemcpyDeviceToHost, stream_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return v;
    }

    // The codes narrowed to T (blank sentinels to T's top two values) and the bins, written in one pass
    // on all threads into a pinned staging area (kept between runs), and sent in one copy.
    void upload() {
        auto step = job_.timing().scope("upload");
        const std::size_t nA = c_.loA.size(), nB = c_.codeB.size();
        auto aligned = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
        const std::size_t loAt = 0, spanAt = loAt + aligned(nA * sizeof(T)), codeAt = spanAt + (Span ? aligned(nA * sizeof(T)) : 0);
        const std::size_t binAAt = codeAt + aligned(nB * sizeof(T)), binBAt = binAAt + aligned(nA), total = binBAt + aligned(nB);
        rt_.staging.ensure(total);
        std::uint8_t* host = rt_.staging.get();
        T* lo = reinterpret_cast<T*>(host + loAt);
        T* span = reinterpret_cast<T*>(host + spanAt);
        T* code = reinterpret_cast<T*>(host + codeAt);
        constexpr T top = std::numeric_limits<T>::max();
        constexpr std::size_t kBlock = 1 << 17;
        const std::size_t blocksA = (nA + kBlock - 1) / kBlock, blocksB = (nB + kBlock - 1) / kBlock;
        parallelFor(0, blocksA + blocksB, 1, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) {
                if (k < blocksA) {
                    const std::size_t end = std::min(nA, (k + 1) * kBlock);
                    for (std::size_t i = k * kBlock; i < end; ++i) {
                        const std::uint32_t v = c_.loA[i];
                        lo[i] = v == kBlankLo ? top : static_cast<T>(v);
                        if (Span) span[i] = static_cast<T>(c_.spanA[i]);
                    }
                    std::copy(c_.binA.begin() + static_cast<std::ptrdiff_t>(k * kBlock), c_.binA.begin() + static_cast<std::ptrdiff_t>(end),
                              host + binAAt + k * kBlock);
                } else {
                    const std::size_t b = k - blocksA, end = std::min(nB, (b + 1) * kBlock);
                    for (std::size_t i = b * kBlock; i < end; ++i) {
                        const std::uint32_t v = c_.codeB[i];
                        code[i] = v == kBlankCode ? T(top - 1) : static_cast<T>(v);
                    }
                    std::copy(c_.binB.begin() + static_cast<std::ptrdiff_t>(b * kBlock), c_.binB.begin() + static_cast<std::ptrdiff_t>(end),
                              host + binBAt + b * kBlock);
                }
            }
        }, threadsForPixels(2.0 * static_cast<double>(nA + nB))); // as many threads as the pixels are worth
        std::uint8_t* device = ws_->get<std::uint8_t>("codes", total);
        GLINT_CUDA_CHECK(cudaMemcpyAsync(device, host, total, cudaMemcpyHostToDevice, stream_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        binA_ = device + binAAt;
        binB_ = device + binBAt;
        m_.lo = reinterpret_cast<const T*>(device + loAt);
        m_.span = Span ? reinterpret_cast<const T*>(device + spanAt) : nullptr;
        m_.code = reinterpret_cast<const T*>(device + codeAt);
        m_.wA = c_.widthA;
        m_.hA = c_.heightA;
        m_.wB = c_.widthB;
        m_.hB = c_.heightB;
    }

    // Shared memory of the labeller: a node array of at least two rows of the widest overlap.
    void configureLabeller() {
        int device = 0, sms = 0, optin = 0;
        GLINT_CUDA_CHECK(cudaGetDevice(&device));
        GLINT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        GLINT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        sms_ = sms;
        const int widest = std::min(c_.widthA, c_.widthB);
        rowsCap_ = 257;
        nodeCap_ = std::max(16384, 2 * (widest + 1));
        maskCap_ = nodeCap_ / 32 + rowsCap_ + 32;
        smemBytes_ = static_cast<std::size_t>(nodeCap_ + 2 * maskCap_) * sizeof(std::uint32_t);
        if (smemBytes_ + 256 > static_cast<std::size_t>(optin))
            throw BackendUnavailable("common component: overlaps " + std::to_string(widest) +
                                     " pixels wide exceed the GPU labeller's shared memory; use --backend cpu");
        auto kernel = labelKernel<T, Span>;
        GLINT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(smemBytes_)));
        // Threads per labelling block: 512 (random4 on an H200: 519 ms against 714 ms with 256), unless the
        // tuning knob GLINT_COMMON_LABEL_THREADS=256 asks for fewer.
        const char* knob = std::getenv("GLINT_COMMON_LABEL_THREADS");
        labelThreads_ = knob && std::string(knob) == "256" ? 256 : 512;
        int perSm = 0;
        GLINT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, labelThreads_, smemBytes_));
        labelGrid_ = sms * std::max(1, perSm);
        scratch_ = ws_->get<std::uint32_t>("scratch", static_cast<std::size_t>(labelGrid_) * widest);
        scratchStride_ = widest;
    }

    // The batch buffers for `items` offsets, batchOffsets_ filled with items[0..n).
    void uploadBatch(const std::vector<int2>& items, std::size_t n) {
        batchOffsets_ = copyTo("batch offsets", items.data(), n);
        batchCounts_ = ws_->get<std::uint32_t>("batch counts", n);
        batchSizes_ = ws_->get<std::uint32_t>("batch sizes", n);
        batchSeeds_ = ws_->get<int2>("batch seeds", n);
    }

    struct Outcome {
        std::uint32_t size = 0;
        std::uint32_t item = 0;
        std::uint32_t labelled = 0;
    };

    // Labels offsets[0..n) already in batchOffsets_; with counts, only those whose count beats minCount.
    Outcome label(std::uint32_t n, bool withCounts, std::uint32_t minCount) {
        Outcome out;
        if (n == 0) return out;
        GLINT_CUDA_CHECK(cudaMemsetAsync(counters_, 0, 8 * sizeof(std::uint32_t), stream_));
        GLINT_CUDA_CHECK(cudaMemsetAsync(bestKey_, 0, sizeof(unsigned long long), stream_));
        LabelArgs args{};
        args.offsets = batchOffsets_;
        args.count = n;
        args.counts = withCounts ? batchCounts_ : nullptr;
        args.minCount = minCount;
        args.work = counters_ + 3;
        args.labelled = counters_ + 4;
        args.outSize = batchSizes_;
        args.outSeed = batchSeeds_;
        args.bestKey = bestKey_;
        args.scratch = scratch_;
        args.scratchStride = scratchStride_;
        args.nodeCap = nodeCap_;
        args.maskCap = maskCap_;
        args.rowsCap = rowsCap_;
        args.cancel = cancel_.device();
        timer_.begin();
        labelKernel<T, Span><<<labelGrid_, labelThreads_, smemBytes_, stream_>>>(m_, args);
        GLINT_CUDA_CHECK_LAUNCH();
        wait("label kernel");
        const unsigned long long key = fetch(bestKey_);
        out.labelled = fetch(counters_ + 4);
        out.size = static_cast<std::uint32_t>(key >> 32);
        out.item = static_cast<std::uint32_t>(key);
        return out;
    }

    void offer(const Outcome& out, int dx, int dy) {
        if (out.size <= best_) return;
        const int2 seed = fetch(batchSeeds_ + out.item);
        best_ = out.size;
        bestDx_ = dx;
        bestDy_ = dy;
        seedX_ = seed.x;
        seedY_ = seed.y;
    }

    // The registration's candidates (computed on the host) and the patch seeds' most voted offsets are
    // labelled first, in one batch: the best of them is the first lower bound of the search.
    void seed() {
        std::vector<std::pair<int, int>> offsets;
        for (const CommonOffset& d : candidates_)
            if (range_.contains(d.dx, d.dy) && std::find(offsets.begin(), offsets.end(), std::make_pair(d.dx, d.dy)) == offsets.end())
                offsets.push_back({d.dx, d.dy});
        // The first candidates' sizes give the runner-up (the batch labels every offset in it).
        const std::size_t fromRegistration = std::min(offsets.size(), kCommonLabelledCandidates);
        for (const auto& o : seedOffsets())
            if (std::find(offsets.begin(), offsets.end(), o) == offsets.end()) offsets.push_back(o);
        stats_.seedCandidates = offsets.size();
        if (offsets.empty()) return;
        std::vector<int2> items;
        for (const auto& [dx, dy] : offsets) items.push_back(make_int2(dx, dy));
        uploadBatch(items, items.size());
        const Outcome out = label(static_cast<std::uint32_t>(items.size()), false, 0);
        if (fromRegistration) {
            std::vector<std::uint32_t> sizes(fromRegistration);
            GLINT_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), batchSizes_, fromRegistration * sizeof(std::uint32_t),
                                             cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            for (std::size_t i = 0; i < fromRegistration; ++i)
                candidateSizes_.push_back({CommonOffset{items[i].x, items[i].y}, sizes[i]});
        }
        if (out.size) offer(out, items[out.item].x, items[out.item].y);
    }

    std::vector<std::pair<int, int>> seedOffsets() {
        const std::vector<SeedPatch> patches = chooseSeedPatches(c_);
        if (patches.empty()) return {};
        std::vector<int2> pos;
        for (const auto& p : patches) pos.push_back(make_int2(p.x, p.y));
        const int2* dPatches = copyTo("patches", pos.data(), pos.size());
        int2* hits = ws_->get<int2>("seed hits", kMaxSeedHits);
        GLINT_CUDA_CHECK(cudaMemsetAsync(counters_, 0, sizeof(std::uint32_t), stream_));
        const dim3 block(32, 8);
        const dim3 grid((c_.widthB - kSeedPatch + 1 + 31) / 32, (c_.heightB - kSeedPatch + 1 + 7) / 8);
        timer_.begin();
        seedKernel<T, Span><<<grid, block, 0, stream_>>>(m_, dPatches, static_cast<int>(pos.size()), hits, counters_,
                                                         kMaxSeedHits);
        GLINT_CUDA_CHECK_LAUNCH();
        wait("seed kernel");
        const std::size_t n = std::min<std::size_t>(fetch(counters_), kMaxSeedHits);
        std::vector<int2> raw(n);
        if (n) {
            GLINT_CUDA_CHECK(cudaMemcpyAsync(raw.data(), hits, n * sizeof(int2), cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        std::vector<std::pair<int, int>> found;
        for (const auto& h : raw) found.push_back({h.x, h.y});
        return rankSeedOffsets(found, range_);
    }

    template <int NP>
    void searchWith() {
        const int wordsA = (c_.widthA + 31) / 32, wordsB = (c_.widthB + 31) / 32;
        std::uint32_t* planesA = ws_->get<std::uint32_t>("planesA", static_cast<std::size_t>(c_.heightA) * wordsA * NP);
        std::uint32_t* planesB = ws_->get<std::uint32_t>("planesB", static_cast<std::size_t>(c_.heightB) * wordsB * NP);
        timer_.begin();
        auto build = [&](const std::uint8_t* bins, int w, int h, int words, std::uint32_t* out) {
            const long long threads = static_cast<long long>(h) * words * 32;
            buildPlanesKernel<NP><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream_>>>(bins, w, h, words, out);
            GLINT_CUDA_CHECK_LAUNCH();
        };
        build(binA_, c_.widthA, c_.heightA, wordsA, planesA);
        build(binB_, c_.widthB, c_.heightB, wordsB, planesB);
        wait("bound kernel");
        buildFftBound();

        const std::uint64_t dyCount = range_.dyCount();
        // Progress moves once per band: 8 bands (each band costs a few synchronisations).
        const int band = progressBand(range_, 8);
        const std::size_t bandOffsets = static_cast<std::size_t>(std::min<std::uint64_t>(range_.dxCount(), band)) * dyCount;
        std::uint32_t* bound = ws_->get<std::uint32_t>("bound", bandOffsets);
        std::uint32_t* keys = ws_->get<std::uint32_t>("keys", bandOffsets);
        std::uint32_t* values = ws_->get<std::uint32_t>("values", bandOffsets);

        for (int dxLo = range_.dxMin; dxLo <= range_.dxMax; dxLo += band) {
            const int dxCount = std::min(band, range_.dxMax - dxLo + 1);
            const std::uint32_t n = static_cast<std::uint32_t>(static_cast<std::uint64_t>(dxCount) * dyCount);
            const std::uint32_t bestAtBound = static_cast<std::uint32_t>(best_);
            GLINT_CUDA_CHECK(cudaMemsetAsync(bound, 0, n * sizeof(std::uint32_t), stream_));
            // Launches of bounded work, so that Cancel is seen between them too.
            const double perColumn = static_cast<double>(c_.heightA) * c_.heightB * std::min(c_.widthA, c_.widthB) / 32.0;
            const int columnsPerLaunch = static_cast<int>(std::clamp(1.5e10 / std::max(1.0, perColumn), 1.0, 65535.0));
            for (int first = 0; first < dxCount; first += columnsPerLaunch) {
                BoundArgs args{planesA, planesB, c_.widthA, c_.heightA, c_.widthB, c_.heightB,
                               wordsA, wordsB, dxLo, range_.dyMin, static_cast<int>(dyCount), first,
                               bestAtBound, bound, cancel_.device(), fft_};
                const dim3 grid(std::min(columnsPerLaunch, dxCount - first),
                                static_cast<unsigned>((dyCount + kBoundDy - 1) / kBoundDy));
                timer_.begin();
                boundKernel<NP><<<grid, kBoundThreads, 0, stream_>>>(args);
                GLINT_CUDA_CHECK_LAUNCH();
                wait("bound kernel");
            }
            // Candidates: offsets whose bound beats the best, sorted by bound, largest first.
            GLINT_CUDA_CHECK(cudaMemsetAsync(counters_, 0, 3 * sizeof(std::uint32_t), stream_));
            SelectArgs select{bound, n, c_.widthA, c_.heightA, c_.widthB, c_.heightB, dxLo,
                              range_.dyMin, static_cast<int>(dyCount), bestAtBound, keys, values,
                              counters_, fft_};
            timer_.begin();
            selectKernel<<<(n + 255) / 256, 256, 0, stream_>>>(select);
            GLINT_CUDA_CHECK_LAUNCH();
            std::uint32_t counts[3];
            GLINT_CUDA_CHECK(cudaMemcpyAsync(counts, counters_, sizeof(counts), cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            stats_.prunedByArea += counts[1];
            stats_.prunedByBound += counts[2];
            const std::uint32_t m = counts[0];
            std::vector<std::uint32_t> hostKeys(m), hostValues(m);
            if (m) {
                std::uint32_t* keys2 = ws_->get<std::uint32_t>("keys2", m);
                std::uint32_t* values2 = ws_->get<std::uint32_t>("values2", m);
                std::size_t sortBytes = 0;
                GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sortBytes, keys, keys2, values, values2,
                                                                           static_cast<int>(m)));
                void* sortTemp = ws_->get("sort temp", std::max<std::size_t>(sortBytes, 16));
                GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(sortTemp, sortBytes, keys, keys2, values, values2,
                                                                           static_cast<int>(m), 0, 32, stream_));
                GLINT_CUDA_CHECK(cudaMemcpyAsync(hostKeys.data(), keys2, m * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, stream_));
                GLINT_CUDA_CHECK(cudaMemcpyAsync(hostValues.data(), values2, m * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, stream_));
            }
            wait("select kernel");
            labelCandidates(hostKeys, hostValues, dxLo, static_cast<int>(dyCount));
            job_.setProgress(0.05 + 0.95 * static_cast<double>(dxLo + dxCount - range_.dxMin) / range_.dxCount());
        }
    }

    // The FFT match-count bound of every offset (CommonRegistration.h's MatchCountBound, on the device),
    // once the seeds gave a best that it can prune at; none when it would not (fftBoundBins) or the
    // transforms would be too large.
    void buildFftBound() {
        const int bins = fftBoundBins(best_, c_);
        if (bins <= 0 || c_.codeCount == 0) return;
        const int sizeX = registrationSize(std::max(c_.widthA, c_.widthB));
        const int sizeY = registrationSize(std::max(c_.heightA, c_.heightB));
        const std::size_t real = static_cast<std::size_t>(sizeX) * sizeY;
        const std::size_t half = static_cast<std::size_t>(sizeX / 2 + 1) * sizeY;
        if (real > (std::size_t{1} << 22)) return;
        // Bins of equal population among B's codes, cut as the host's bound cuts them.
        const std::optional<FftBoundBins> cut = equalPopulationBins(c_, bins);
        if (!cut) return;
        const int k = cut->k;
        const std::vector<std::uint8_t>& binOf = cut->binOf;
        const std::uint64_t validA = cut->validA, totalB = cut->validB;
        // Bins in groups whose planes and spectra take at most ~256 MiB.
        const std::size_t perBin = 2 * (real * sizeof(double) + half * sizeof(double2));
        const int group = static_cast<int>(std::clamp<std::size_t>((std::size_t{256} << 20) / perBin, 1, static_cast<std::size_t>(k)));
        if (!rt_.fftPlans.ensure(sizeX, sizeY, 2 * group, CUFFT_D2Z, CUFFT_Z2D, stream_)) return;
        const std::uint8_t* dBinOf = copyTo("fft bin of code", binOf.data(), binOf.size());
        double* planes = ws_->get<double>("fft planes", 2 * group * real);
        double2* spectra = ws_->get<double2>("fft spectra", 2 * group * half);
        double2* acc = ws_->get<double2>("fft sum", half);
        std::uint32_t* bound = ws_->get<std::uint32_t>("fft bound", real);
        timer_.begin();
        const dim3 block(32, 8), grid((sizeX + 31) / 32, (sizeY + 7) / 8);
        for (int first = 0; first < k; first += group) {
            const int g = std::min(group, k - first);
            fftPlanesKernel<T, Span><<<grid, block, 0, stream_>>>(m_, dBinOf, static_cast<std::uint32_t>(c_.codeCount), first,
                                                                  group, sizeX, sizeY, planes);
            GLINT_CUDA_CHECK_LAUNCH();
            // Planes past the last bin are all 0: they add nothing.
            if (!rt_.fftPlans.forward(planes, reinterpret_cast<cufftDoubleComplex*>(spectra)))
                throw BackendUnavailable("common component: cuFFT failed in the FFT bound; use --backend cpu");
            fftAccumulateKernel<<<static_cast<unsigned>((half + 255) / 256), 256, 0, stream_>>>(spectra, g, half, acc, first == 0);
            GLINT_CUDA_CHECK_LAUNCH();
        }
        // The inverse overwrites its input: the sum is not needed after it.
        double* counts = planes;
        if (!rt_.fftPlans.inverse(reinterpret_cast<cufftDoubleComplex*>(acc), counts))
            throw BackendUnavailable("common component: cuFFT failed in the FFT bound; use --backend cpu");
        // The host's margin: far above the rounding error of a double-precision FFT correlation.
        const double margin = 1.0 + 1e-6 * std::sqrt(static_cast<double>(validA) * static_cast<double>(totalB));
        fftBoundKernel<<<static_cast<unsigned>((real + 255) / 256), 256, 0, stream_>>>(counts, real, 1.0 / static_cast<double>(real),
                                                                                    margin, bound);
        GLINT_CUDA_CHECK_LAUNCH();
        wait("fft bound");
        fft_.bound = bound;
        fft_.sizeX = sizeX;
        fft_.sizeY = sizeY;
    }

    void labelCandidates(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values, int dxLo,
                         int dyCount) {
        std::size_t pos = 0;
        double budget = 1 << 26; // pixels per batch, tuned to ~30 ms a launch as batches run
        std::vector<int2> items;
        while (pos < keys.size() && keys[pos] > best_) {
            items.clear();
            double pixels = 0;
            std::size_t end = pos;
            while (end < keys.size() && keys[end] > best_ && pixels < budget && items.size() < (1u << 20)) {
                const int dx = dxLo + static_cast<int>(values[end] / dyCount);
                const int dy = range_.dyMin + static_cast<int>(values[end] % dyCount);
                pixels += static_cast<double>(glint::common_component::overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, dx, dy).area());
                items.push_back(make_int2(dx, dy));
                ++end;
            }
            const std::uint32_t n = static_cast<std::uint32_t>(items.size());
            uploadBatch(items, n);
            double ms = 0;
            if (!c_.boundExact) {
                timer_.begin();
                countKernel<T, Span><<<std::min<std::uint32_t>(n, static_cast<std::uint32_t>(sms_) * 8), 256, 0, stream_>>>(
                    m_, batchOffsets_, n, batchCounts_, cancel_.device());
                GLINT_CUDA_CHECK_LAUNCH();
                ms += wait("count kernel");
            }
            const auto before = job_.timing().step("label kernel");
            const Outcome out = label(n, !c_.boundExact, static_cast<std::uint32_t>(best_));
            ms += job_.timing().step("label kernel") - before;
            stats_.labelled += out.labelled;
            stats_.prunedByCount += n - out.labelled;
            if (out.size) offer(out, items[out.item].x, items[out.item].y);
            budget = std::clamp(budget * 30.0 / std::max(ms, 0.5), double(1 << 22), double(1ull << 33));
            pos = end;
        }
        stats_.prunedByBound += keys.size() - pos;
    }

    Workspace::Lease ws_{workspace()}; // first: held for the whole run
    Runtime& rt_ = ws_->keep<Runtime>();
    const CommonCoding& c_;
    JobControl& job_;
    OffsetRange range_;
    CommonComponentStats stats_;
    std::vector<CommonOffset> candidates_;
    std::vector<CommonCandidateSize> candidateSizes_;
    std::uint64_t best_ = 0;
    int bestDx_ = 0, bestDy_ = 0, seedX_ = 0, seedY_ = 0;
    double kernelMs_ = 0;

    cudaStream_t stream_ = rt_.stream;
    EventTimer& timer_ = rt_.timer;
    CancelFlag& cancel_ = rt_.cancel;
    std::uint32_t* counters_ = ws_->get<std::uint32_t>("counters", 8);
    unsigned long long* bestKey_ = ws_->get<unsigned long long>("bestKey", 1);
    std::uint32_t* scratch_ = nullptr;
    const std::uint8_t* binA_ = nullptr;
    const std::uint8_t* binB_ = nullptr;
    int2* batchOffsets_ = nullptr;
    int2* batchSeeds_ = nullptr;
    std::uint32_t* batchCounts_ = nullptr;
    std::uint32_t* batchSizes_ = nullptr;
    MatchData<T, Span> m_;
    FftBound fft_;
    int sms_ = 1, labelGrid_ = 1, labelThreads_ = 512, nodeCap_ = 0, maskCap_ = 0, rowsCap_ = 0, scratchStride_ = 0;
    std::size_t smemBytes_ = 0;
};

template <class T>
CommonComponentResult searchTyped(const CommonCoding& coding, const CommonComponentParams& params, JobControl& job) {
    if (coding.spanA.empty()) return Search<T, false>(coding, params, job).run();
    return Search<T, true>(coding, params, job).run();
}

class CommonComponentCuda : public CommonComponentAlgorithm {
public:
    bool registerImages(const Image& a, const Image& b, const OffsetRange& range, int peaks, Registration& out,
                        JobControl& job) override {
        // Short of GPU memory for the transforms: the host registers (the search may still fit).
        try {
            return registerOnDevice(a, b, range, peaks, out, job);
        } catch (const BackendUnavailable&) {
            out = {};
            return false;
        }
    }

    CommonComponentResult run(const Image& a, const Image& b, const CommonComponentParams& params,
                              JobControl& job) override {
        validateCommonComponentParams(params);
        job.setDevice(deviceNameFor(Backend::Cuda));
        CommonCoding coding;
        {
            auto step = job.timing().scope("prepare");
            coding = codeImages(a, b, params.tolerance, job);
        }
        if (coding.codeCount == 0) {
            CommonComponentResult empty;
            empty.maskWidth = a.width();
            empty.maskHeight = a.height();
            empty.stats.offsets = offsetRange(a.width(), a.height(), b.width(), b.height(), params.maxShift).count();
            empty.stats.prunedByArea = empty.stats.offsets;
            return empty;
        }
        // The narrowest code type that leaves room for the two blank sentinels.
        if (coding.codeCount <= 0xFD) return searchTyped<std::uint8_t>(coding, params, job);
        if (coding.codeCount <= 0xFFFD) return searchTyped<std::uint16_t>(coding, params, job);
        return searchTyped<std::uint32_t>(coding, params, job);
    }
};

} // namespace
} // namespace common

void registerCommonComponentCuda() {
    CommonComponentRegistry::add(Backend::Cuda, [] { return std::make_unique<common::CommonComponentCuda>(); });
}

} // namespace glint::cuda
