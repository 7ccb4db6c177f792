// The reference trace: every segment scored in double precision, and a plain dynamic programme over
// (previous point, current point) pairs that tries every predecessor of every turn: O(n d^3).
#include "core/algo/trace/LineTrace.h"
#include "core/algo/trace/TraceGeometry.h"

#include <limits>

namespace glint {

namespace {

constexpr double kNone = -std::numeric_limits<double>::infinity();

class LineTracerReference final : public LineTracer {
public:
    Backend backend() const override { return Backend::Reference; }

protected:
    void scoreSegments(const TraceGeometry& g, JobControl& job) override {
        const int n = g.guides();
        const std::size_t d = static_cast<std::size_t>(g.points());
        const TraceField& field = *field_;

        // seg[k-1][c*d + x]: q_{k,c} -> q_{k+1,x}, k = 1..n-1.
        std::vector<double>& first = first_;
        std::vector<double>& last = last_;
        first.assign(d, 0.0);
        last.assign(d, 0.0);
        seg_.assign(n - 1, std::vector<double>(d * d));
        std::vector<std::vector<double>>& seg = seg_;
        {
            auto step = job.timing().scope("segment scores");
            for (std::size_t c = 0; c < d; ++c) {
                const int ci = static_cast<int>(c);
                first[c] = segmentScoreExact(field, g.a(), g.firstShape(ci));
                last[c] = segmentScoreExact(field, g.point(n, ci), g.lastShape(ci));
            }
            for (int k = 1; k < n; ++k) {
                for (std::size_t c = 0; c < d; ++c) {
                    job.throwIfCancelled(); // a row is at most d segments: well within Cancel's 100 ms
                    const TracePoint p = g.point(k, static_cast<int>(c));
                    for (std::size_t x = 0; x < d; ++x)
                        seg[k - 1][c * d + x] =
                            segmentScoreExact(field, p, g.interiorShape(static_cast<int>(x) - static_cast<int>(c)));
                }
            }
        }
    }

    // The DP on edge weights score - lambda * length.
    Optimum optimize(const TraceGeometry& g, double lambda, JobControl& job) override {
        const int n = g.guides();
        const std::size_t d = static_cast<std::size_t>(g.points());
        std::vector<double> first(d), last(d);
        std::vector<std::vector<double>> seg(n - 1, std::vector<double>(d * d));
        for (std::size_t c = 0; c < d; ++c) {
            const int ci = static_cast<int>(c);
            first[c] = first_[c] - lambda * g.firstShape(ci).length;
            last[c] = last_[c] - lambda * g.lastShape(ci).length;
            for (int k = 1; k < n; ++k)
                for (std::size_t x = 0; x < d; ++x)
                    seg[k - 1][c * d + x] = seg_[k - 1][c * d + x] -
                                            lambda * g.interiorShape(static_cast<int>(x) - ci).length;
        }

        auto step = job.timing().scope("dp");
        Optimum best;
        best.score = kNone;
        if (n == 1) {
            for (std::size_t c = 0; c < d; ++c)
                if (g.singleGuideAllowed(static_cast<int>(c)) && first[c] + last[c] > best.score) {
                    best.score = first[c] + last[c];
                    best.indices = {static_cast<int>(c)};
                }
            return best;
        }
        // score[p*d + c]: the best path a..q_{k-1} = p, q_k = c; back[k][c*d + x] = the best q_{k-1} for
        // q_k = c, q_{k+1} = x.
        std::vector<double> score(d * d), next(d * d);
        std::vector<std::vector<int>> back(n + 1);
        for (std::size_t c = 0; c < d; ++c)
            for (std::size_t x = 0; x < d; ++x) {
                const bool ok = g.turnAllowed(g.firstAngle(static_cast<int>(c)),
                                              g.interiorAngle(static_cast<int>(x) - static_cast<int>(c)));
                score[c * d + x] = ok ? first[c] + seg[0][c * d + x] : kNone;
            }
        for (int k = 2; k < n; ++k) {
            back[k + 1].assign(d * d, -1);
            for (std::size_t c = 0; c < d; ++c) {
                job.throwIfCancelled();
                for (std::size_t x = 0; x < d; ++x) {
                    const double out = g.interiorAngle(static_cast<int>(x) - static_cast<int>(c));
                    double bestIn = kNone;
                    int bestP = -1;
                    for (std::size_t p = 0; p < d; ++p) {
                        if (!g.turnAllowed(g.interiorAngle(static_cast<int>(c) - static_cast<int>(p)), out)) continue;
                        if (score[p * d + c] > bestIn) {
                            bestIn = score[p * d + c];
                            bestP = static_cast<int>(p);
                        }
                    }
                    next[c * d + x] = bestIn + seg[k - 1][c * d + x];
                    back[k + 1][c * d + x] = bestP;
                }
            }
            std::swap(score, next);
        }
        int bestP = -1, bestC = -1;
        for (std::size_t p = 0; p < d; ++p)
            for (std::size_t c = 0; c < d; ++c) {
                if (!g.turnAllowed(g.interiorAngle(static_cast<int>(c) - static_cast<int>(p)),
                                   g.lastAngle(static_cast<int>(c))))
                    continue;
                const double total = score[p * d + c] + last[c];
                if (total > best.score) {
                    best.score = total;
                    bestP = static_cast<int>(p);
                    bestC = static_cast<int>(c);
                }
            }
        if (bestC < 0) return best;
        best.indices.assign(n, 0);
        best.indices[n - 1] = bestC;
        best.indices[n - 2] = bestP;
        for (int j = n; j >= 3; --j)
            best.indices[j - 3] = back[j][static_cast<std::size_t>(best.indices[j - 2]) * d + best.indices[j - 1]];
        return best;
    }

private:
    std::vector<double> first_, last_;
    std::vector<std::vector<double>> seg_;
};

} // namespace

std::unique_ptr<LineTracer> makeLineTracerReference() { return std::make_unique<LineTracerReference>(); }

} // namespace glint
