// B fitted onto A (CommonNormalisation.h): the robust statistics, the linear fit (medians and MADs, least
// squares, then the line that matches more pairs), histogram matching, and B' in the narrowest type.
#include "core/algo/commoncomponent/CommonNormalisation.h"

#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace glint::common_component::normalisation {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lo + (hi - lo) / 2;
}

double mad(const std::vector<double>& v, double centre) {
    std::vector<double> dev(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) dev[i] = std::abs(v[i] - centre);
    return median(std::move(dev));
}

double kthOf(const Weighted& w, std::uint64_t k) {
    for (const auto& [value, count] : w) {
        if (k < count) return value;
        k -= count;
    }
    return w.empty() ? 0.0 : w.back().first;
}

// The same value as median() of the expanded samples.
double medianOf(const Weighted& w) {
    std::uint64_t total = 0;
    for (const auto& e : w) total += e.second;
    if (total == 0) return 0.0;
    const std::uint64_t mid = total / 2;
    const double hi = kthOf(w, mid);
    if (total % 2) return hi;
    const double lo = kthOf(w, mid - 1);
    return lo + (hi - lo) / 2;
}

Weighted deviationsOf(const Weighted& w, double centre) {
    Weighted out;
    out.reserve(w.size());
    for (const auto& [value, count] : w) out.push_back({std::abs(value - centre), count});
    std::sort(out.begin(), out.end());
    return out;
}

// The linear fit B' = gain * B + bias (into conf). Robust: medians and MADs; a flat side (MAD 0) has no
// scale to fit: the medians alone are matched. Then, for pairs of one overlap (the whole images' samples
// are not pairs), least squares on the inliers of that fit (residual within 3 robust sigmas), twice: the
// MAD ratio of quantised samples is only roughly the gain.
void fitLinear(const FitInput& in, double tolerance, bool roundToA, CommonComponentConfidence& conf) {
    double medA, medB, madA, madB;
    if (in.counted) {
        medA = medianOf(in.valuesA), medB = medianOf(in.valuesB);
        madA = medianOf(deviationsOf(in.valuesA, medA)), madB = medianOf(deviationsOf(in.valuesB, medB));
    } else {
        medA = median(in.pairA), medB = median(in.pairB);
        madA = mad(in.pairA, medA), madB = mad(in.pairB, medB);
    }
    conf.gain = madA > 0 && madB > 0 ? madA / madB : 1.0;
    conf.bias = medA - conf.gain * medB;
    for (int round = 0; round < 2 && in.paired && madA > 0 && madB > 0; ++round) {
        double n = 0, sb = 0, sa = 0, sbb = 0, sab = 0;
        if (in.counted) {
            Weighted residual;
            for (int i = 0; i < in.nA; ++i)
                for (int j = 0; j < in.nB; ++j) {
                    const std::uint64_t c = in.joint[static_cast<std::size_t>(i) * in.nB + j];
                    if (!c) continue;
                    const double a = in.minA + i, b = in.minB + j;
                    residual.push_back({std::abs(a - (conf.gain * b + conf.bias)), c});
                }
            std::sort(residual.begin(), residual.end());
            const double limit = std::max(1.0, 3.0 * 1.4826 * medianOf(residual));
            for (int i = 0; i < in.nA; ++i)
                for (int j = 0; j < in.nB; ++j) {
                    const std::uint64_t count = in.joint[static_cast<std::size_t>(i) * in.nB + j];
                    const double a = in.minA + i, b = in.minB + j, c = static_cast<double>(count);
                    if (!count || std::abs(a - (conf.gain * b + conf.bias)) > limit) continue;
                    n += c, sb += c * b, sa += c * a, sbb += c * b * b, sab += c * a * b;
                }
        } else {
            const auto& pairA = in.pairA;
            const auto& pairB = in.pairB;
            std::vector<double> residual(pairA.size());
            for (std::size_t i = 0; i < pairA.size(); ++i) residual[i] = std::abs(pairA[i] - (conf.gain * pairB[i] + conf.bias));
            const double limit = std::max(1.0, 3.0 * 1.4826 * median(residual));
            for (std::size_t i = 0; i < pairA.size(); ++i) {
                if (residual[i] > limit) continue;
                n += 1, sb += pairB[i], sa += pairA[i], sbb += pairB[i] * pairB[i], sab += pairA[i] * pairB[i];
            }
        }
        const double varB = n > 1 ? sbb - sb * sb / n : 0.0;
        if (!(varB > 0)) break;
        const double gain = (sab - sa * sb / n) / varB;
        if (!(gain > 0) || !std::isfinite(gain)) break;
        conf.gain = gain;
        conf.bias = (sa - gain * sb) / n;
    }
    if (!in.paired || !(madA > 0 && madB > 0) || tolerance <= 0) return;
    // Then the line that matches more pairs: a change the line cannot undo (gamma) leaves the least-squares
    // line off at both ends of the range, where fewer pairs lie. Least squares on the pairs that match
    // under the current line (|A - B'| <= tolerance, B' as the backends will see it), kept while it matches
    // more of them (at most 4 rounds). Still a line: B' = gain * B + bias.
    auto mapped = [&](double gain, double bias, double b) { return roundToA ? std::nearbyint(gain * b + bias) : gain * b + bias; };
    // The distinct value pairs with their counts, ascending (a, then b), from either input.
    std::vector<std::array<double, 3>> pairs;
    if (in.counted) {
        for (int i = 0; i < in.nA; ++i)
            for (int j = 0; j < in.nB; ++j)
                if (const std::uint64_t c = in.joint[static_cast<std::size_t>(i) * in.nB + j])
                    pairs.push_back({static_cast<double>(in.minA + i), static_cast<double>(in.minB + j), static_cast<double>(c)});
    } else {
        for (const auto& [pair, count] : in.uniquePairs) pairs.push_back({pair.first, pair.second, static_cast<double>(count)});
    }
    auto visitPairs = [&](auto fn) {
        for (const auto& p : pairs) fn(p[0], p[1], p[2]);
    };
    // The pairs a line matches, counted per B value: its A values ascending with the running count of all
    // pairs before them, so that the A values matching B' = m (|a - m| <= t: one run of them, as a - m
    // only grows with a) are two binary searches. The counts are integers: the same sum as pair by pair.
    std::vector<std::size_t> order(pairs.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return pairs[x][1] != pairs[y][1] ? pairs[x][1] < pairs[y][1] : x < y;
    });
    std::vector<double> columnB, valueA(pairs.size()), before(pairs.size() + 1, 0.0);
    std::vector<std::size_t> columnAt;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& p = pairs[order[k]];
        if (columnB.empty() || p[1] != columnB.back()) columnB.push_back(p[1]), columnAt.push_back(k);
        valueA[k] = p[0];
        before[k + 1] = before[k] + p[2];
    }
    columnAt.push_back(pairs.size());
    // Counted (integers both sides: B' rounded, A's values minA + i): |a - v| <= t is v - floor(t) <= a <=
    // v + floor(t), so a dense table of running counts per B value (where it is small) answers each B value
    // with two lookups. Only for |v| and t below 2^31 (then every difference is exact); else the searches.
    const bool dense = in.counted && roundToA && tolerance < 2147483648.0 &&
                       static_cast<double>(columnB.size()) * (in.nA + 1) <= static_cast<double>(1 << 20);
    const double floorT = std::floor(tolerance);
    const std::size_t stride = static_cast<std::size_t>(in.nA) + 1;
    std::vector<double> running;
    if (dense) {
        running.assign(columnB.size() * stride, 0.0);
        for (std::size_t col = 0; col < columnB.size(); ++col) {
            const std::size_t j = static_cast<std::size_t>(static_cast<int>(columnB[col]) - in.minB);
            double* r = running.data() + col * stride;
            for (std::size_t i = 0; i < static_cast<std::size_t>(in.nA); ++i)
                r[i + 1] = r[i] + static_cast<double>(in.joint[i * static_cast<std::size_t>(in.nB) + j]);
        }
    }
    auto matched = [&](double gain, double bias) {
        double m = 0;
        for (std::size_t col = 0; col < columnB.size(); ++col) {
            const double v = mapped(gain, bias, columnB[col]);
            if (dense && std::abs(v) < 2147483648.0) {
                const double n = static_cast<double>(in.nA);
                const double first = std::clamp(v - floorT - in.minA, 0.0, n), last = std::clamp(v + floorT - in.minA + 1, 0.0, n);
                if (last > first) {
                    const double* r = running.data() + col * stride;
                    m += r[static_cast<std::size_t>(last)] - r[static_cast<std::size_t>(first)];
                }
                continue;
            }
            const auto first = valueA.begin() + static_cast<std::ptrdiff_t>(columnAt[col]);
            const auto last = valueA.begin() + static_cast<std::ptrdiff_t>(columnAt[col + 1]);
            const auto lo = std::partition_point(first, last, [&](double a) { return a - v < 0 && !samplesMatch(a, v, tolerance); });
            const auto hi = std::partition_point(lo, last, [&](double a) { return samplesMatch(a, v, tolerance); });
            m += before[static_cast<std::size_t>(hi - valueA.begin())] - before[static_cast<std::size_t>(lo - valueA.begin())];
        }
        return m;
    };
    double best = matched(conf.gain, conf.bias);
    for (int round = 0; round < 4; ++round) {
        double n = 0, sb = 0, sa = 0, sbb = 0, sab = 0;
        visitPairs([&](double a, double b, double c) {
            if (!samplesMatch(a, mapped(conf.gain, conf.bias, b), tolerance)) return;
            n += c, sb += c * b, sa += c * a, sbb += c * b * b, sab += c * a * b;
        });
        const double varB = n > 1 ? sbb - sb * sb / n : 0.0;
        if (!(varB > 0)) break;
        const double gain = (sab - sa * sb / n) / varB;
        if (!(gain > 0) || !std::isfinite(gain)) break;
        const double bias = (sa - gain * sb) / n;
        const double m = matched(gain, bias);
        if (!(m > best)) break;
        best = m;
        conf.gain = gain;
        conf.bias = bias;
    }
    // Then a search of the lines near it, kept where one matches more pairs: gains within 20 %, turned
    // about B's median, and biases within 8, then twice finer around the best. Where the pairs take at
    // most 2^14 distinct value pairs (then it costs little: the grid's lines are counted on all threads,
    // the first best in grid order kept, as one thread would); it only ever adds matched pairs.
    double total = 0;
    for (const auto& p : pairs) total += p[2];
    if (pairs.size() > (std::size_t{1} << 14) || best >= total) return;
    const double pivot = in.counted ? medianOf(in.valuesB) : median(in.pairB);
    constexpr int kGain = 20, kBias = 16, kSide = 2 * kBias + 1;
    std::vector<double> counts(static_cast<std::size_t>(2 * kGain + 1) * kSide);
    double step = 1.0;
    for (int stage = 0; stage < 3; ++stage, step /= 8) {
        const double g0 = conf.gain, c0 = conf.bias;
        auto lineAt = [&](std::size_t k) {
            const int kg = static_cast<int>(k / kSide) - kGain, kc = static_cast<int>(k % kSide) - kBias;
            const double gain = g0 * (1 + 0.01 * step * kg);
            return std::pair<double, double>{gain, c0 - (gain - g0) * pivot + 0.5 * step * kc};
        };
        // A line and B value: ~3 ns (two lookups) or ~20 ns (two short binary searches); threads sized to it.
        const double work = static_cast<double>(counts.size()) * static_cast<double>(columnB.size()) * (dense ? 6.0 : 40.0);
        parallelFor(0, counts.size(), 64, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) {
                const auto [gain, bias] = lineAt(k);
                counts[k] = gain > 0 ? matched(gain, bias) : 0.0;
            }
        }, threadsForPixels(work));
        for (std::size_t k = 0; k < counts.size(); ++k)
            if (counts[k] > best) best = counts[k], std::tie(conf.gain, conf.bias) = lineAt(k);
    }
}

// Histogram matching: a B value goes to A's value at its mid-rank quantile among B's fitted samples.
double rankMapped(const std::vector<double>& sortedA, const std::vector<double>& sortedB, double v) {
    if (sortedA.empty()) return v;
    const double less = static_cast<double>(std::lower_bound(sortedB.begin(), sortedB.end(), v) - sortedB.begin());
    const double upTo = static_cast<double>(std::upper_bound(sortedB.begin(), sortedB.end(), v) - sortedB.begin());
    const double q = sortedB.empty() ? 0.5 : (less + upTo) / 2 / static_cast<double>(sortedB.size());
    const std::size_t k = std::min(sortedA.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sortedA.size())));
    return sortedA[k];
}

// The same mapping from counts: `less` of B's fitted samples are below v and `same` equal to it.
double rankMappedCounted(const Weighted& valuesA, std::uint64_t totalA, std::uint64_t totalB, std::uint64_t less,
                         std::uint64_t same, double v) {
    if (totalA == 0) return v;
    const double q = totalB == 0 ? 0.5
                                 : (static_cast<double>(less) + static_cast<double>(less + same)) / 2 /
                                       static_cast<double>(totalB);
    const std::uint64_t k = std::min<std::uint64_t>(totalA - 1, static_cast<std::uint64_t>(q * static_cast<double>(totalA)));
    return kthOf(valuesA, k);
}

// The blank mask of B' (B's invalid samples), or none when every sample is valid.
template <class Valid>
void setBlanks(Image& image, std::size_t n, Valid valid) {
    std::vector<std::uint8_t> blank(n);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) blank[i] = valid(i) ? 0 : 1, any = any || blank[i];
    if (any) image.setBlankMask(std::move(blank));
}

// B' from a value per pixel: 8- or 16-bit integers when every value is one (the backends then code it
// through a table, without a sort), doubles otherwise; B's invalid samples blank.
template <class ValueAt, class Valid>
Image mappedImage(const Image& b, ValueAt valueAt, Valid valid) {
    const std::size_t n = b.pixelCount();
    std::atomic<bool> uint8{true}, int16{true}, uint16{true};
    parallelFor(0, n, 1 << 16, [&](std::size_t first, std::size_t last) {
        bool u8 = true, i16 = true, u16 = true;
        for (std::size_t i = first; i < last && (i16 || u16); ++i) {
            if (!valid(i)) continue;
            const double v = valueAt(i);
            if (v != std::floor(v)) u8 = i16 = u16 = false;
            if (!(v >= 0 && v <= 255)) u8 = false;
            if (!(v >= -32768 && v <= 32767)) i16 = false;
            if (!(v >= 0 && v <= 65535)) u16 = false;
        }
        if (!u8) uint8 = false;
        if (!i16) int16 = false;
        if (!u16) uint16 = false;
    });
    auto build = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> samples(n);
        parallelFor(0, n, 1 << 16, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) samples[i] = valid(i) ? static_cast<T>(valueAt(i)) : T(0);
        });
        return Image::fromSamples<T>(b.width(), b.height(), std::move(samples));
    };
    Image result = uint8 ? build(std::uint8_t{}) : int16 ? build(std::int16_t{}) : uint16 ? build(std::uint16_t{}) : build(double{});
    setBlanks(result, n, valid);
    result.meta = b.meta;
    result.updateIntegerValued();
    return result;
}

} // namespace

Image normalisedB(const Image& b, const Samples& sb, const FitInput& in, bool roundToA, CommonNormalize how,
                  double tolerance, CommonComponentConfidence& conf) {
    auto valid = [&](std::size_t i) { return sb.ok[i] != 0; };
    if (how == CommonNormalize::Linear) {
        fitLinear(in, tolerance, roundToA, conf);
        const double gain = conf.gain, bias = conf.bias;
        return mappedImage(b, [&](std::size_t i) { return roundToA ? std::nearbyint(gain * sb.v[i] + bias) : gain * sb.v[i] + bias; },
                           valid);
    }
    std::vector<double> sortedA = in.pairA, sortedB = in.pairB;
    std::sort(sortedA.begin(), sortedA.end());
    std::sort(sortedB.begin(), sortedB.end());
    return mappedImage(b, [&](std::size_t i) { return rankMapped(sortedA, sortedB, sb.v[i]); }, valid);
}

// The same from counts: one mapped value per value of B's range, looked up per pixel (A holds integers).
Image normalisedCountedB(const Image& b, const IntRange& rb, const FitInput& in, CommonNormalize how, double tolerance,
                         CommonComponentConfidence& conf) {
    std::vector<double> table(rb.count());
    if (how == CommonNormalize::Linear) {
        fitLinear(in, tolerance, true, conf);
        for (std::size_t j = 0; j < table.size(); ++j)
            table[j] = std::nearbyint(conf.gain * static_cast<double>(rb.lo + static_cast<int>(j)) + conf.bias);
    } else {
        // B's counts walked once, below and at each value.
        std::uint64_t totalA = 0, totalB = 0;
        for (const auto& e : in.valuesA) totalA += e.second;
        for (const auto& e : in.valuesB) totalB += e.second;
        std::size_t p = 0;
        std::uint64_t less = 0;
        for (std::size_t j = 0; j < table.size(); ++j) {
            const double v = static_cast<double>(rb.lo + static_cast<int>(j));
            while (p < in.valuesB.size() && in.valuesB[p].first < v) less += in.valuesB[p++].second;
            const std::uint64_t same = p < in.valuesB.size() && in.valuesB[p].first == v ? in.valuesB[p].second : 0;
            table[j] = rankMappedCounted(in.valuesA, totalA, totalB, less, same, v);
        }
    }
    // The narrowest type that holds the table (every value is an integer: rounded, or one of A's), one
    // pass to map, and B's own blank mask (its only invalid samples).
    bool u8 = true, i16 = true, u16 = true;
    for (double v : table) u8 = u8 && v >= 0 && v <= 255, i16 = i16 && v >= -32768 && v <= 32767, u16 = u16 && v >= 0 && v <= 65535;
    auto build = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> samples(b.pixelCount());
        visitSmall(b, [&](const auto* pb) {
            // The table in T (one lookup a pixel, no conversion), one share of the pixels a thread.
            std::vector<T> narrow(table.size());
            for (std::size_t j = 0; j < table.size(); ++j) narrow[j] = static_cast<T>(table[j]);
            const int threads = threadsForPixels(static_cast<double>(samples.size()));
            const std::size_t n = samples.size(), shares = static_cast<std::size_t>(threads);
            const std::uint8_t* blank = b.hasBlanks() ? b.blankMask().data() : nullptr;
            parallelFor(0, shares, 1, [&](std::size_t first, std::size_t last) {
                for (std::size_t t = first; t < last; ++t) {
                    const std::size_t begin = n * t / shares, end = n * (t + 1) / shares;
                    if (blank) {
                        for (std::size_t i = begin; i < end; ++i)
                            samples[i] = blank[i] ? T(0) : narrow[static_cast<std::size_t>(static_cast<int>(pb[i]) - rb.lo)];
                    } else {
                        for (std::size_t i = begin; i < end; ++i) samples[i] = narrow[static_cast<std::size_t>(static_cast<int>(pb[i]) - rb.lo)];
                    }
                }
            }, threads);
        });
        return Image::fromSamples<T>(b.width(), b.height(), std::move(samples));
    };
    Image result = u8 ? build(std::uint8_t{}) : i16 ? build(std::int16_t{}) : u16 ? build(std::uint16_t{}) : build(double{});
    if (b.hasBlanks()) result.setBlankMask(b.blankMask());
    result.meta = b.meta;
    result.updateIntegerValued();
    return result;
}

} // namespace glint::common_component::normalisation
