// The fast CPU trace: segment scores in float on all cores, then a DP whose every step is O(d^2): for a
// fixed current point c the feasible predecessors of the turn towards x form one interval that only
// moves one way as x moves, so a monotone deque gives each range maximum in amortised O(1).
#include "core/algo/trace/LineTrace.h"
#include "core/algo/trace/TraceGeometry.h"
#include "core/algo/trace/TraceSampling.h"
#include "core/util/Parallel.h"

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>

namespace glint {

PaddedField::PaddedField(const TraceField& field)
    : width(field.width()), height(field.height()), pitch(field.width() + 2),
      xy(2 * static_cast<std::size_t>(field.width() + 2) * (field.height() + 2), 0.0f) {
    const float* src = field.vectors();
    for (int y = 0; y < height; ++y) {
        const float* row = src + 2 * static_cast<std::size_t>(y) * width;
        std::copy(row, row + 2 * static_cast<std::size_t>(width), xy.begin() + (at(0, y) - xy.data()));
    }
}

namespace {

constexpr float kNone = -std::numeric_limits<float>::infinity();

class LineTracerCpu final : public LineTracer {
public:
    Backend backend() const override { return Backend::Cpu; }

    void setField(std::shared_ptr<const TraceField> field, JobControl& job) override {
        auto step = job.timing().scope("pad field");
        padded_.emplace(*field);
        field_ = std::move(field);
    }

protected:
    void scoreSegments(const TraceGeometry& g, JobControl& job) override {
        const int n = g.guides();
        const int d = g.points();
        const std::size_t dd = static_cast<std::size_t>(d) * d;
        const PaddedField& field = *padded_;

        std::vector<FloatShape> interior(2 * d - 1);
        for (int delta = -(d - 1); delta < d; ++delta) interior[delta + d - 1] = toFloatShape(g.interiorShape(delta));

        // seg[(k-1)*d*d + c*d + x]: q_{k,c} -> q_{k+1,x}. Rows (k, c) are handed out to the threads.
        first_.resize(d);
        last_.resize(d);
        seg_.resize(static_cast<std::size_t>(n - 1) * dd);
        {
            auto step = job.timing().scope("segment scores");
            // a -> q_{1,c} is a fan from a; q_{n,c} -> b, walked backwards, a fan from b with the same
            // sample points (midpoints are symmetric, and |G x v| ignores the sign of v).
            std::vector<FloatShape> firstShapes(d), lastShapes(d);
            for (int c = 0; c < d; ++c) {
                firstShapes[c] = toFloatShape(g.firstShape(c));
                lastShapes[c] = toFloatShape(g.lastShape(c));
                lastShapes[c].stepX = -lastShapes[c].stepX;
                lastShapes[c].stepY = -lastShapes[c].stepY;
            }
            sampleFan(field, splitPoint(g.a()), firstShapes.data(), d, first_.data());
            sampleFan(field, splitPoint(g.b()), lastShapes.data(), d, last_.data());
            const std::size_t rows = static_cast<std::size_t>(n - 1) * d;
            // About 1e5 samples a chunk: fine enough to balance two threads, coarse enough for no overhead.
            const double perRow = g.samplesPerTransition() / d;
            const std::size_t grain = std::max<std::size_t>(1, static_cast<std::size_t>(1e5 / std::max(1.0, perRow)));
            parallelFor(0, rows, grain, [&](std::size_t begin, std::size_t end) {
                job.throwIfCancelled();
                for (std::size_t row = begin; row < end; ++row) {
                    const int k = static_cast<int>(row / d) + 1;
                    const int c = static_cast<int>(row % d);
                    const SplitPoint p = splitPoint(g.point(k, c));
                    float* out = seg_.data() + row * d;
                    // Only the segments some feasible path can use (the first and last transitions' turn
                    // limits exclude the rest, which the DP never reads); zero stands in for the others.
                    const IndexRange r = g.usedSuccessors(k, c);
                    const int lo = std::clamp(r.lo, 0, d), hi = std::clamp(r.hi, lo - 1, d - 1);
                    std::fill(out, out + lo, 0.0f);
                    if (hi >= lo) sampleFan(field, p, interior.data() + (d - 1 - c) + lo, hi - lo + 1, out + lo);
                    std::fill(out + hi + 1, out + d, 0.0f);
                }
            });
        }
        // Segment lengths in float, for the lambda term of the ratio objective.
        interiorLength_.resize(2 * static_cast<std::size_t>(d) - 1);
        firstLength_.resize(d);
        lastLength_.resize(d);
        for (int delta = -(d - 1); delta < d; ++delta)
            interiorLength_[delta + d - 1] = static_cast<float>(g.interiorShape(delta).length);
        for (int c = 0; c < d; ++c) {
            firstLength_[c] = static_cast<float>(g.firstShape(c).length);
            lastLength_[c] = static_cast<float>(g.lastShape(c).length);
        }
    }

    // The DP on edge weights score - lambda * length (lambda = 0: exactly the segment scores).
    Optimum optimize(const TraceGeometry& g, double lambdaValue, JobControl& job) override {
        const int n = g.guides();
        const int d = g.points();
        const std::size_t dd = static_cast<std::size_t>(d) * d;
        const float lambda = static_cast<float>(lambdaValue);
        auto step = job.timing().scope("dp");
        Optimum best;
        best.score = -std::numeric_limits<double>::infinity();
        std::vector<float> firstW(d), lastW(d);
        for (int c = 0; c < d; ++c) {
            firstW[c] = first_[c] - lambda * firstLength_[c];
            lastW[c] = last_[c] - lambda * lastLength_[c];
        }
        if (n == 1) {
            for (int c = 0; c < d; ++c) {
                const double total = static_cast<double>(firstW[c] + lastW[c]);
                if (g.singleGuideAllowed(c) && total > best.score) {
                    best.score = total;
                    best.indices = {c};
                }
            }
            return best;
        }
        // score[c*d + p]: the best path a..q_{k-1} = p, q_k = c (row c holds every predecessor, so the range
        // maxima read it contiguously); back[(k-3)*d*d + c*d + x]: the best q_{k-1} for q_k = c, q_{k+1} = x.
        score_.assign(dd, kNone);
        next_.resize(dd);
        back_.resize(static_cast<std::size_t>(std::max(0, n - 2)) * dd);
        for (int c = 0; c < d; ++c) {
            const IndexRange r = g.firstTurnSuccessors(c);
            for (int x = r.lo; x <= r.hi; ++x)
                score_[static_cast<std::size_t>(x) * d + c] =
                    firstW[c] + (seg_[static_cast<std::size_t>(c) * d + x] - lambda * interiorLength_[x - c + d - 1]);
        }
        for (int k = 2; k < n; ++k) {
            job.throwIfCancelled();
            const float* s = seg_.data() + static_cast<std::size_t>(k - 1) * dd;
            std::uint16_t* back = back_.data() + static_cast<std::size_t>(k - 2) * dd;
            std::fill(next_.begin(), next_.end(), kNone);
            // Small steps (the live sizes) are faster on the calling thread than with threads started.
            const std::size_t grain = dd <= (1u << 18) ? d : std::max(1, d / 16);
            parallelFor(0, d, grain, [&](std::size_t begin, std::size_t end) {
                std::vector<int> deque(d);
                for (std::size_t c = begin; c < end; ++c)
                    slidingStep(g, static_cast<int>(c), lambda, score_.data() + c * d, s + c * d, back + c * d, deque);
            });
            std::swap(score_, next_);
        }
        int bestC = -1, bestP = -1;
        for (int c = 0; c < d; ++c) {
            const IndexRange r = g.lastTurnPredecessors(c);
            const float* row = score_.data() + static_cast<std::size_t>(c) * d;
            for (int p = r.lo; p <= r.hi; ++p) {
                const double total = static_cast<double>(row[p] + lastW[c]);
                if (total > best.score) {
                    best.score = total;
                    bestC = c;
                    bestP = p;
                }
            }
        }
        if (bestC < 0) return best;
        best.indices.assign(n, 0);
        best.indices[n - 1] = bestC;
        best.indices[n - 2] = bestP;
        for (int j = n; j >= 3; --j)
            best.indices[j - 3] =
                back_[static_cast<std::size_t>(j - 3) * dd + static_cast<std::size_t>(best.indices[j - 2]) * d +
                      best.indices[j - 1]];
        return best;
    }

private:
    // One current point c: for x from d-1 down to 0 the predecessor window [lo, hi] only moves up, so a
    // deque of candidates in decreasing score order gives each window's maximum (earliest index on ties).
    void slidingStep(const TraceGeometry& g, int c, float lambda, const float* scoreRow, const float* segRow,
                     std::uint16_t* backRow, std::vector<int>& deque) {
        const int d = g.points();
        const float* lengthRow = interiorLength_.data() + (d - 1 - c); // lengthRow[x]: q_{k,c} -> q_{k+1,x}
        int head = 0, tail = 0, pushed = 0;
        for (int x = d - 1; x >= 0; --x) {
            const IndexRange r = g.predecessors(c, x);
            for (; pushed <= r.hi; ++pushed) {
                if (scoreRow[pushed] == kNone) continue;
                while (tail > head && scoreRow[deque[tail - 1]] < scoreRow[pushed]) --tail;
                deque[tail++] = pushed;
            }
            while (tail > head && deque[head] < r.lo) ++head;
            float* out = next_.data() + static_cast<std::size_t>(x) * d + c;
            if (tail > head) {
                const int p = deque[head];
                *out = scoreRow[p] + (segRow[x] - lambda * lengthRow[x]);
                backRow[x] = static_cast<std::uint16_t>(p);
            } else {
                *out = kNone;
                backRow[x] = 0;
            }
        }
    }

    std::optional<PaddedField> padded_;
    std::vector<float> first_, last_, seg_, score_, next_;
    std::vector<float> interiorLength_, firstLength_, lastLength_;
    std::vector<std::uint16_t> back_;
};

} // namespace

std::unique_ptr<LineTracer> makeLineTracerCpu() { return std::make_unique<LineTracerCpu>(); }

void registerLineTraceCpuBackends() {
    static std::once_flag once;
    std::call_once(once, [] {
        BackendRegistry<LineTracer>::add(Backend::Reference, [] { return makeLineTracerReference(); });
        BackendRegistry<LineTracer>::add(Backend::Cpu, [] { return makeLineTracerCpu(); });
    });
}

} // namespace glint
