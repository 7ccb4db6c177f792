// The work array's float and 32-bit statistics (mean pivot, positive sum) on random images of the region
// measurement suite, bit for bit against the one chain per row they replaced.
#include "tests/cpu/test_region_measure_support.h"
#include "tests/support/TestSupport.h"

#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"

#include <QtTest>

#include <cstddef>
#include <utility>

using namespace glint;
using namespace glint::test::regionmeasure;

class TestRegionWorkArray : public QObject {
    Q_OBJECT
private slots:
    // The work array's float and 32-bit statistics (mean pivot, positive sum), summed in vectorised partial
    // sums where proven exact, against the one chain per row they replaced.
    void workArrayMatchesChains_data() {
        QTest::addColumn<int>("kind");
        for (Kind k : {Kind::F32, Kind::F32Wide, Kind::F32Integer, Kind::I32, Kind::U32})
            QTest::newRow(kindName(k)) << static_cast<int>(k);
    }
    void workArrayMatchesChains() {
        QFETCH(int, kind);
        for (const auto& [W, H] : {std::pair{97, 61}, std::pair{517, 300}}) {
            const Image im = makeImage(static_cast<Kind>(kind), W, H, 31u + static_cast<unsigned>(W));
            for (const char* pivot : {"mean", "117.3"}) {
                BrightestParams params;
                params.pivot = PivotSpec::parse(pivot);
                const WorkArray work = prepareWorkArray(im, params);
                // The mean: long double chains per row, rows in order.
                long double total = 0.0L;
                std::size_t count = 0;
                for (int y = 0; y < H; ++y) {
                    long double row = 0.0L;
                    for (int x = 0; x < W; ++x) row += static_cast<long double>(im.value(x, y));
                    total += row;
                    count += static_cast<std::size_t>(W);
                }
                if (params.pivot.kind == PivotSpec::Kind::Mean)
                    QVERIFY(same(work.pivot, static_cast<double>(total / static_cast<long double>(count))));
                if (work.integer) continue;
                // The positive sum: four chains per row (x mod 4, the tail on the first), rows in order.
                double rows = 0.0;
                for (int y = 0; y < H; ++y) {
                    double c[4] = {0.0, 0.0, 0.0, 0.0};
                    int x = 0;
                    for (; x + 4 <= W; x += 4)
                        for (int k = 0; k < 4; ++k) {
                            const double a = im.value(x + k, y) - work.pivot;
                            c[k] += !(a > 0) ? 0.0 : a;
                        }
                    for (; x < W; ++x) {
                        const double a = im.value(x, y) - work.pivot;
                        c[0] += !(a > 0) ? 0.0 : a;
                    }
                    rows += (c[0] + c[1]) + (c[2] + c[3]);
                }
                QVERIFY2(same(work.positiveSum, rows * (1.0 + 1e-9) + 1e-300),
                         qPrintable(QString("%1 vs %2").arg(work.positiveSum, 0, 'g', 17).arg(rows * (1.0 + 1e-9) + 1e-300, 0, 'g', 17)));
            }
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestRegionWorkArray)
#include "test_region_work_array.moc"
