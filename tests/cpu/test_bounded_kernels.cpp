// The CUDA bounded search's strip code (cuda/BoundedSearchKernels.cuh: the whole-strip scan of round 1, the
// segment rescans of later rounds from the kept checkpoints, each strip's best and the rule's first column)
// run on the host, thread by thread, with the kernels' index arithmetic (which items a round rescans, which
// tops it revisits, the per-top and global reductions) written out as the kernels have it. Every round
// against a full bounded search (scanStripBounded below over every strip: the plain monotone-deque scan that
// NOTES.md's "Bounded search" states), bit for bit: the
// logic is checked without a device; the device runs are test_bounded's cuda rows.
#include "cuda/BoundedSearchKernels.cuh"

#include "core/algo/maxsub/MaxSubarrayBase.h"

#include <QtTest>

#include <algorithm>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

using namespace glint;
namespace bd = glint::cuda::maxsub::bounded;

namespace {

// The oracle: the best segment of one strip of the bounded search (length <= maxLen, no blocked column): for each last
// column the smallest S[first] over the window by a monotone deque, then boundedFirst for the rule's first.
// S is formed in the same pass, in boundedRowPrefix's order. S (cols + 1) and dq (cols) are scratch.
// O(cols + maxLen).
template <class V>
StripBest<V> scanStripBounded(const V* pt, const V* pb, std::ptrdiff_t stride, int cols, int bottom,
                              const std::int32_t* blockedRow, int maxLen, V* S, std::int32_t* dq) {
    StripBest<V> best;
    int bestLo = 0;
    int head = 0, tail = 0, lo = 0;
    V prefix = V(0); // S[c]
    S[0] = prefix;
    for (int c = 0; c < cols; ++c) {
        const V next = prefix + (pb[c * stride] - pt[c * stride]); // S[c + 1]
        S[c + 1] = next;
        if (blockedRow && blockedRow[c] <= bottom) {
            head = tail = 0;
            lo = c + 1;
            prefix = next;
            continue;
        }
        while (tail > head && !(S[dq[tail - 1]] < prefix)) --tail; // equal values: the later start stays
        dq[tail++] = c;
        const int windowLo = std::max(lo, c - maxLen + 1);
        while (dq[head] < windowLo) ++head;
        const V v = next - S[dq[head]];
        if (v > best.sum) {
            best.sum = v;
            best.last = c;
            bestLo = windowLo;
        }
        prefix = next;
    }
    if (best.last >= 0) best.first = boundedFirst(S, bestLo, best.last, best.sum);
    return best;
}

// The device state and the kernels' loops (boundedScanKernel, boundedRescanKernel, boundedReduceKernel).
template <class V>
struct Emulation {
    int R = 0, C = 0, H = 0, L = 0;
    std::vector<V> PT, dv;
    std::vector<int> next, di;
    std::vector<std::shared_ptr<void>> state; // the buffers of layOutState, zeroed
    bd::Result<V> best{};
    bd::Args<V> a;

    Emulation(int rows, int cols, int P, const std::vector<V>& prefix, const std::vector<int>& nextIndex)
        : R(rows), C(cols), H(std::min(P, rows)), L(std::min(P, cols)) {
        PT.assign(static_cast<std::size_t>(C) * (R + 1), V(0));
        for (int r = 0; r <= R; ++r)
            for (int c = 0; c < C; ++c) PT[static_cast<std::size_t>(c) * (R + 1) + r] = prefix[static_cast<std::size_t>(r) * C + c];
        next = nextIndex;
        dv.assign(L + 1, V(0));
        di.assign(L + 1, 0);
        a.PT = PT.data();
        a.ptPitch = static_cast<std::size_t>(R) + 1;
        a.next = next.data();
        a.nextPitch = C;
        bd::layOutState(a, R, C, H, L, [this]<class T>(T*& p, const char*, std::size_t n) {
            const std::shared_ptr<T[]> buffer(new T[n]());
            state.push_back(buffer);
            p = buffer.get();
        });
    }
    bd::Ring<V> ring() { return bd::Ring<V>{dv.data(), di.data(), 1, L + 1}; }

    void reduceTop(int t, bool first, const bd::Result<V>& r) {
        if (!first) {
            int* row = a.next + static_cast<std::size_t>(t) * a.nextPitch;
            for (int c = r.first; c <= r.last; ++c) row[c] = t >= r.top ? t : std::min(row[c], r.top);
        }
        V v = V(0);
        int key = -1;
        for (int d = 0; d < H && t + d < R; ++d) {
            const std::size_t s = static_cast<std::size_t>(t) * H + d;
            if (a.touched[s]) {
                bd::finishStrip(a, s, t, t + d);
                a.touched[s] = 0;
            }
            if (a.stripL[s] >= 0 && (key < 0 || a.stripV[s] > v)) {
                v = a.stripV[s];
                key = d;
            }
        }
        a.topV[t] = v;
        a.topBottom[t] = key < 0 ? -1 : t + key;
    }
    void reduceAll() {
        V v = V(0);
        int key = -1;
        for (int u = 0; u < R; ++u)
            if (a.topBottom[u] >= 0 && (key < 0 || a.topV[u] > v)) {
                v = a.topV[u];
                key = u;
            }
        bd::Result<V> out{};
        if (key >= 0) {
            const int b = a.topBottom[key];
            const std::size_t s = static_cast<std::size_t>(key) * H + (b - key);
            out = {v, 1, key, b, a.stripF[s], a.stripL[s], 0};
        }
        best = out;
    }
    void round(int i) {
        if (i == 0) {
            for (std::size_t s = 0; s < a.strips; ++s) {
                const int t = static_cast<int>(s / H), b = t + static_cast<int>(s % H);
                if (b < R) bd::scanWholeStrip(a, s, t, b, ring());
            }
            for (int t = 0; t < R; ++t) reduceTop(t, true, best);
            reduceAll();
            return;
        }
        const bd::Result<V> r = best;
        if (!r.valid) return reduceAll();
        const long long items = static_cast<long long>(bd::rescanSpan(L)) * (2 * H - 1) * H;
        for (long long item = 0; item < items; ++item) {
            const int d = static_cast<int>(item % H);
            const long long rest = item / H;
            const int ii = static_cast<int>(rest % (2 * H - 1)), jj = static_cast<int>(rest / (2 * H - 1));
            const int t = r.top - H + 1 + ii, b = t + d;
            if (t < 0 || t > r.bottom || b >= R || b < r.top) continue;
            const int j = r.first / bd::kSeg + jj;
            if (j >= a.nseg || j * bd::kSeg > r.last + L - 1) continue;
            const std::size_t s = static_cast<std::size_t>(t) * H + d, k = static_cast<std::size_t>(j) * a.strips + s;
            if (a.segLast[k] < 0 || a.segLast[k] < r.first || a.segHead[k] > r.last) continue;
            bd::scanSegment(a, s, t, b, j, r.first, r.last, ring());
        }
        for (int block = 0; block < 2 * H - 1; ++block) {
            const int t = r.top - H + 1 + block;
            if (t >= 0 && t <= r.bottom && t < R) reduceTop(t, false, r);
        }
        reduceAll();
    }
};

// One random case: the emulated rounds against a full search each round. False (with a message) on a
// difference.
template <class V>
bool emulatedCase(std::mt19937& rng, int trial, QString& why) {
    std::uniform_int_distribution<int> rowsD(1, 40), colsD(1, 130), kindD(0, 3);
    const int bounds[] = {1, 2, 3, 5, 7, 15, 31, 32, 33, 64, 65, 100};
    int R = rowsD(rng), C = colsD(rng);
    if (R > C) std::swap(R, C); // work arrays have rows <= cols
    const int P = bounds[rng() % 12], K = 1 + static_cast<int>(rng() % 60), kind = kindD(rng);
    std::vector<V> a(static_cast<std::size_t>(R) * C);
    std::vector<unsigned char> mask(a.size(), 0);
    for (V& x : a) {
        if constexpr (std::is_integral_v<V>) x = kind == 0 ? V(rng() % 5) - 2 : V(rng() % 61) - 30; // ties
        else x = std::uniform_real_distribution<double>(-1.0, 1.05)(rng) * (kind == 0 ? 1.0 : 1e3);
    }
    if (kind >= 2)
        for (unsigned char& m : mask) m = rng() % 20 == 0;
    std::vector<V> prefix(static_cast<std::size_t>(R + 1) * C, V(0));
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c)
            prefix[static_cast<std::size_t>(r + 1) * C + c] =
                prefix[static_cast<std::size_t>(r) * C + c] + (mask[static_cast<std::size_t>(r) * C + c] ? V(0) : a[static_cast<std::size_t>(r) * C + c]);
    auto nextIndex = [&] {
        std::vector<int> n(static_cast<std::size_t>(R + 1) * C, R);
        for (int c = 0; c < C; ++c)
            for (int r = R - 1, first = R; r >= 0; --r) {
                if (mask[static_cast<std::size_t>(r) * C + c]) first = r;
                n[static_cast<std::size_t>(r) * C + c] = first;
            }
        return n;
    };
    Emulation<V> e(R, C, P, prefix, nextIndex());
    const int H = std::min(P, R), L = std::min(P, C);
    std::vector<V> S(static_cast<std::size_t>(C) + 1);
    std::vector<std::int32_t> dq(static_cast<std::size_t>(C));
    for (int round = 0; round < K; ++round) {
        const std::vector<int> n = nextIndex();
        V bv = V(0);
        int bt = -1, bb = 0;
        StripBest<V> bs;
        for (int t = 0; t < R; ++t)
            for (int b = t; b < R && b - t < H; ++b) {
                const StripBest<V> s = scanStripBounded(prefix.data() + static_cast<std::size_t>(t) * C, prefix.data() + static_cast<std::size_t>(b + 1) * C, 1,
                                                        C, b, n.data() + static_cast<std::size_t>(t) * C, L, S.data(), dq.data());
                if (s.last >= s.first && s.sum > bv) {
                    bv = s.sum;
                    bt = t;
                    bb = b;
                    bs = s;
                }
            }
        e.round(round);
        const bd::Result<V>& g = e.best;
        const bool same = (bt >= 0) == (g.valid != 0) &&
                          (bt < 0 || (g.sum == bv && g.top == bt && g.bottom == bb && g.first == bs.first && g.last == bs.last));
        if (!same) {
            why = QString("trial %1 (%2x%3, P=%4, kind %5) round %6: emulated %7,%8 cols %9..%10 sum %11, full search %12,%13 cols %14..%15 sum %16")
                      .arg(trial).arg(R).arg(C).arg(P).arg(kind).arg(round).arg(g.top).arg(g.bottom).arg(g.first).arg(g.last)
                      .arg(static_cast<double>(g.sum), 0, 'g', 17).arg(bt).arg(bb).arg(bs.first).arg(bs.last).arg(static_cast<double>(bv), 0, 'g', 17);
            return false;
        }
        if (bt < 0) break;
        for (int r = bt; r <= bb; ++r)
            for (int c = bs.first; c <= bs.last; ++c) mask[static_cast<std::size_t>(r) * C + c] = 1;
    }
    return true;
}

} // namespace

class TestBoundedKernels : public QObject {
    Q_OBJECT

private slots:
    void integerRounds() {
        std::mt19937 rng(71);
        QString why;
        for (int trial = 0; trial < 600; ++trial) QVERIFY2(emulatedCase<long long>(rng, trial, why), qPrintable(why));
    }
    void doubleRounds() {
        std::mt19937 rng(72);
        QString why;
        for (int trial = 0; trial < 600; ++trial) QVERIFY2(emulatedCase<double>(rng, trial, why), qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(TestBoundedKernels)
#include "test_bounded_kernels.moc"
