// Brightest region's overlays in the window: exclusions drawn with the canvas tools on the synthetic
// mammogram keep regions off them (the CLI's regions with the same shapes), a pivot sweep draws one rectangle
// per pivot with a legend, the region layer fades with rank and paints a thousand regions quickly, and the
// overlap mode (K-MSP) with its Distinct control gives the CLI's regions.
// Screenshots: set GLINT_SCREENSHOT_DIR to keep the window grabs the tests take (mammogram, sweep).
#include "tests/gui/test_gui_brightest_support.h"

#include "ui/canvas/CanvasTool.h"
#include "ui/docks/LayerDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/TimingLog.h"
#include "ui/session/SessionInputs.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>

#include <cmath>
#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

// Shows the window and opens the synthetic mammogram (its path in `file`) in it; the test skips where the
// sample is missing.
#define OPEN_MAMMOGRAM(window, file)                                                            \
    const QString file = test::samplePath(QStringLiteral("synthetic-mammogram.png"));           \
    if (!QFile::exists(file)) QSKIP("the synthetic mammogram sample is missing");               \
    showWindow(window);                                                                         \
    if (QTest::currentTestFailed()) return;                                                     \
    (window).openFile(file);                                                                    \
    GLINT_WAIT_FOR_IMAGE(window)

class TestGuiBrightestOverlays : public QObject {
    Q_OBJECT

private slots:
    // The pectoral muscle (a polygon) and the film label (a rectangle) drawn with the tools on the synthetic
    // mammogram: the regions keep off them, and they are the regions the CLI finds with the same shapes.
    void mammogramExclusions() {
        MainWindow window({false, false});
        OPEN_MAMMOGRAM(window, file);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        plainSearch(module); // the exclusions drawn by hand, as a user does without the auto-exclusion
        panel->kBox()->setValue(3);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        const QVector<Region> before = shownRegions(module->regionLayer(), module->model());

        ImageCanvas* canvas = window.canvas();
        canvas->setScaleAt(canvas->scale() * 0.85, QPointF(canvas->width() / 2.0, canvas->height() / 2.0));
        panel->excludePolygonButton()->click();
        QVERIFY(canvas->tool() != static_cast<CanvasTool*>(canvas->defaultTool()));
        const ViewTransform v = canvas->view();
        const QList<QPointF> wedge{QPointF(-4, -4), QPointF(306, -4), QPointF(-4, 636)};
        for (const QPointF& p : wedge) QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(p).toPoint());
        QTest::mouseDClick(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(wedge.last()).toPoint());
        QCOMPARE(module->exclusionCount(), 1);
        panel->excludeRectangleButton()->click();
        dragPixels(canvas, QPoint(736, 864), QPoint(1030, 1030));
        QCOMPARE(module->exclusionCount(), 2);
        QCOMPARE(panel->exclusionList()->count(), 2);
        QCOMPARE(module->exclusionLayer()->itemCount(), 2);
        QVERIFY(module->exclusionLayer()->isFilled());

        const glint::BrightestParams params = module->currentParams(3);
        QCOMPARE(params.excludePolygons.size(), std::size_t(1));
        QCOMPARE(params.excludeRects.size(), std::size_t(1));
        const glint::PixelRect label = params.excludeRects[0];
        // The drag's corners, to within a screen pixel, clipped to the image.
        QVERIFY2(std::abs(label.x - 736) <= 2 && std::abs(label.y - 864) <= 2 && label.x + label.width == 1024 &&
                     label.y + label.height == 1024,
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(label.x).arg(label.y).arg(label.width).arg(label.height)));
        bool beforeTouched = false;
        for (const Region& r : before) beforeTouched = beforeTouched || !avoids(r.rect, params);
        QVERIFY2(beforeTouched, "without exclusions a region should use the muscle or the label (else this test shows nothing)");

        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        const QVector<Region> after = shownRegions(module->regionLayer(), module->model());
        QCOMPARE(after.size(), 3);
        for (const Region& r : after) QVERIFY2(avoids(r.rect, params), qPrintable(describe(after)));
        QStringList polygon;
        for (const auto& [x, y] : params.excludePolygons[0].points) polygon << formatExact(x) << formatExact(y);
        QString error;
        const QVector<Region> expected = cliRegions(
            file,
            {QStringLiteral("--k"), QStringLiteral("3"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--exclude"),
             QStringLiteral("%1,%2,%3,%4").arg(label.x).arg(label.y).arg(label.width).arg(label.height),
             QStringLiteral("--exclude-polygon"), polygon.join(QLatin1Char(','))},
            &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(sameRegions(after, expected), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(after), describe(expected))));
        canvas->fitToWindow();
        QTest::qWait(50);
        saveShot(window, QStringLiteral("mammogram-exclusions"));
        saveShot(*panel, QStringLiteral("brightest-panel"));

        // The exclusion list and the shapes select each other; Delete removes one.
        QListWidget* list = panel->exclusionList();
        list->setCurrentRow(1);
        QCOMPARE(module->exclusionLayer()->selected(), 1);
        module->exclusionLayer()->setSelected(0);
        QCOMPARE(list->currentRow(), 0);
        panel->deleteExclusionButton()->click();
        QCOMPARE(module->exclusionCount(), 1);
        QCOMPARE(list->count(), 1);
        QCOMPARE(module->exclusionLayer()->itemCount(), 1);
        QCOMPARE(module->currentParams(1).excludePolygons.size(), std::size_t(0)); // the polygon went
        // Another image: the shapes belonged to this one.
        window.context().setImage(Image(20, 20, SampleType::UInt8), QStringLiteral("next"));
        QCOMPARE(module->exclusionCount(), 0);
        QCOMPARE(list->count(), 0);
        QVERIFY(!module->roi());
    }

    // The mammogram paper's figure: one rectangle per pivot, each in its own colour, with a legend that
    // follows the colours and visibility set in the Layers dock; rows and rectangles linked across pivots.
    void pivotSweep() {
        MainWindow window({false, false});
        OPEN_MAMMOGRAM(window, file);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        plainSearch(module);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        panel->sweepEdit()->setText(QStringLiteral("mean, p90 p95;p99"));
        QVERIFY(panel->kBox()->value() > 1); // K is for "K Brightest Regions": the sweep draws one per pivot
        // As the paper does: the chest wall, the film label and the lead marker out of the way first.
        module->addExclusionPolygon(QPolygonF{QPointF(-1, -1), QPointF(306, -1), QPointF(-1, 636)});
        module->addExclusionRectangle(QRect(736, 864, 288, 160));
        module->addExclusionRectangle(QRect(850, 40, 174, 80));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->sweepButton()->click(); }, &message), qPrintable(message));
        BrightestSweepLayer* sweep = module->sweepLayer();
        QVERIFY(sweep);
        QCOMPARE(sweep->pivotCount(), 4);
        QCOMPARE(window.context().layers()->layers().last(), static_cast<OverlayLayer*>(sweep)); // the legend on top
        const QStringList pivots{"mean", "p90", "p95", "p99"};
        const Image& image = *window.context().image();
        QSet<QRgb> colours;
        for (int i = 0; i < 4; ++i) {
            BrightestRegionLayer* layer = sweep->pivotLayer(i);
            QCOMPARE(layer->itemCount(), 1);
            colours.insert(layer->colour().rgb());
            QVERIFY2(sweep->legendText(i).startsWith(pivots[i]), qPrintable(sweep->legendText(i)));
            // The same region as a run of that pivot alone.
            glint::BrightestParams one = module->currentParams(1);
            one.pivot = PivotSpec::parse(pivots[i].toStdString());
            JobControl job;
            const BrightestResult alone = runBrightest(image, one, Backend::Cpu, job);
            QCOMPARE(alone.regions.size(), std::size_t(1));
            const glint::BrightestRegion& r = alone.regions[0];
            QCOMPARE(layer->regions()[0].pixels, QRect(r.x, r.y, r.width, r.height));
            QCOMPARE(module->model()->value(i, 8).toDouble(), r.sum);
            QCOMPARE(module->model()->value(i, 1).toString(), pivots[i]);
            QCOMPARE(module->model()->value(i, 2).toDouble(), alone.pivot);
        }
        QCOMPARE(colours.size(), 4);
        ImageCanvas* canvas = window.canvas();
        const QRect legend = sweep->legendRect(QRectF(canvas->rect()), canvas->view()).toAlignedRect();
        QVERIFY(canvas->rect().contains(legend));
        const auto swatchPixels = [&](const QColor& colour) {
            const QImage grab = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
            int n = 0;
            for (int y = legend.top(); y <= legend.bottom(); ++y)
                for (int x = legend.left(); x <= legend.right(); ++x) n += grab.pixel(x, y) == colour.rgb();
            return n;
        };
        for (int i = 0; i < 4; ++i) QVERIFY2(swatchPixels(sweep->pivotLayer(i)->colour()) >= 50, qPrintable(pivots[i]));
        saveShot(window, QStringLiteral("mammogram-sweep"));
        // Recolouring a pivot's layer recolours its swatch; hiding it leaves a hollow swatch.
        const QColor purple(120, 40, 200);
        sweep->pivotLayer(2)->setColour(purple);
        QVERIFY(swatchPixels(purple) >= 50);
        const auto entry = [&] {
            return window.layerDock()->list()->findItems(sweep->pivotLayer(3)->name(), Qt::MatchExactly).value(0);
        };
        QVERIFY(entry());
        const int shown = swatchPixels(sweep->pivotLayer(3)->colour());
        entry()->setCheckState(Qt::Unchecked);
        QVERIFY(!sweep->pivotLayer(3)->isVisible());
        QVERIFY2(swatchPixels(sweep->pivotLayer(3)->colour()) < shown / 2, "a hidden pivot keeps a filled swatch");
        entry()->setCheckState(Qt::Checked);

        // Rows ↔ rectangles across the pivot layers.
        ResultsDock* results = window.resultsDock();
        QCOMPARE(results->currentLayer(), static_cast<OverlayLayer*>(sweep));
        QCOMPARE(module->model()->rowCount(), 4);
        results->selectRow(2);
        QCOMPARE(sweep->pivotLayer(2)->selected(), 0);
        QCOMPARE(sweep->pivotLayer(0)->selected(), -1);
        sweep->pivotLayer(1)->setSelected(0);
        QCOMPARE(results->selectedRow(), 1);
        QCOMPARE(sweep->pivotLayer(2)->selected(), -1);
        // A click on an edge of the mean pivot's rectangle that no other rectangle is near.
        const double tolerance = 4.0 / canvas->scale();
        const QRectF b = sweep->pivotLayer(0)->itemBounds(0);
        bool clicked = false;
        for (double t : {0.5, 0.25, 0.75, 0.1, 0.9}) {
            for (const QPointF& p : {QPointF(b.left() + t * b.width(), b.top()), QPointF(b.left() + t * b.width(), b.bottom()),
                                     QPointF(b.left(), b.top() + t * b.height()), QPointF(b.right(), b.top() + t * b.height())}) {
                bool alone = sweep->pivotLayer(0)->hitTest(p, tolerance) == 0;
                for (int i = 1; i < 4; ++i) alone = alone && sweep->pivotLayer(i)->hitTest(p, tolerance) < 0;
                if (!alone || clicked) continue;
                QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, canvas->view().imageToWidget(p).toPoint());
                clicked = true;
            }
        }
        QVERIFY(clicked);
        QCOMPARE(results->selectedRow(), 0);
        QCOMPARE(sweep->pivotLayer(0)->selected(), 0);
        QCOMPARE(sweep->pivotLayer(1)->selected(), -1);
        // One timing record for the sweep.
        QCOMPARE(window.context().timingLog()->records().back().parameters.left(24), QStringLiteral("pivots=mean,p90,p95,p99 "));
        // A wrong pivot in the list: a message, no run.
        panel->sweepEdit()->setText(QStringLiteral("mean, p200"));
        QVERIFY(!module->runSweep());
        QVERIFY2(panel->status().contains(QStringLiteral("p200")), qPrintable(panel->status()));
    }

    // The region layer on its own: with fading (overlap mode) rank 1 is drawn strongest and rank K faintest,
    // and a thousand regions with labels paint quickly (labels that would overlap are left out).
    void regionLayerFadesAndScales() {
        BrightestRegionLayer nested(QStringLiteral("nested"), QColor(255, 176, 0));
        QVector<RegionMark> rings;
        for (int rank = 1; rank <= 20; ++rank) // rank 1 the innermost, as K-MSP's best regions nest in the others
            rings.append({rank, QRect(100 - 4 * rank, 100 - 4 * rank, 8 * rank + 1, 8 * rank + 1), QStringLiteral("#%1").arg(rank)});
        nested.setRegions(rings);
        nested.setFadeWithRank(true);
        QVERIFY(nested.opacityForRank(1) == 1.0 && nested.opacityForRank(20) >= 0.25 && nested.opacityForRank(20) < 0.3);
        QImage picture(400, 400, QImage::Format_RGB32);
        picture.fill(Qt::black);
        const ViewTransform view(QSize(200, 200), false, 2.0, QPointF(0, 0));
        {
            QPainter painter(&picture);
            nested.paint(painter, view);
        }
        const auto edgeRed = [&](int rank) { // the middle of the region's left edge on screen
            const QRectF w = view.imageToWidget(nested.itemBounds(rank - 1));
            int best = 0;
            for (int dx = -1; dx <= 1; ++dx) best = std::max(best, qRed(picture.pixel(static_cast<int>(std::lround(w.left())) + dx, static_cast<int>(w.center().y()))));
            return best;
        };
        QVERIFY2(edgeRed(1) > edgeRed(10) && edgeRed(10) > edgeRed(20) + 20,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(edgeRed(1)).arg(edgeRed(10)).arg(edgeRed(20))));
        if (!qEnvironmentVariableIsEmpty("GLINT_SCREENSHOT_DIR"))
            picture.save(QDir(qEnvironmentVariable("GLINT_SCREENSHOT_DIR")).filePath(QStringLiteral("overlap-fading.png")));

        std::mt19937 rng(9);
        std::uniform_int_distribution<int> at(0, 1980), side(2, 60);
        QVector<RegionMark> many;
        for (int rank = 1; rank <= 1000; ++rank)
            many.append({rank, QRect(at(rng), at(rng), side(rng), side(rng)), QStringLiteral("#%1  %2").arg(rank).arg(1000000 - rank)});
        BrightestRegionLayer layer(QStringLiteral("many"), QColor(255, 176, 0));
        layer.setRegions(many);
        layer.setSelected(999);
        QImage canvas(1400, 900, QImage::Format_RGB32);
        canvas.fill(Qt::black);
        QElapsedTimer clock;
        clock.start();
        {
            QPainter painter(&canvas);
            layer.paint(painter, ViewTransform(QSize(2048, 2048), false, 0.43, QPointF(0, 0)));
        }
        qInfo("1000 regions painted in %lld ms", static_cast<long long>(clock.elapsed()));
        QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed()))); // ~60 ms here; generous
        QVERIFY(test::pictureStats(canvas).distinctColours > 10);
    }

    // Overlap (K-MSP) is one more mode: until the core has it, its message is shown; once it has, the
    // regions come in rank order with non-increasing sums, drawn dimmer as the rank grows.
    void overlapMode() {
        const Image image = test::randomIntImage(40, 30, -60, 60, test::Seed{3});
        const QString file = writeMatrix(image, QStringLiteral("brightest-overlap.csv"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, file));
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        panel->modeBox()->setCurrentIndex(panel->modeBox()->findData(QStringLiteral("overlap")));
        panel->distinctCheck()->setChecked(false); // plain K-MSP (the Distinct control: distinctControl below)
        panel->kBox()->setValue(8);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        if (!runAndWait(module, [&] { panel->runButton()->click(); }, &message)) {
            QVERIFY2(message.contains(QStringLiteral("not available yet")), qPrintable(message));
            QCOMPARE(panel->status(), message);
            QVERIFY(!module->regionLayer());
            QCOMPARE(window.resultsDock()->resultSetCount(), 0);
            return;
        }
        QString error;
        const QVector<Region> expected = cliRegions(
            file, {QStringLiteral("--k"), QStringLiteral("8"), QStringLiteral("--mode"), QStringLiteral("overlap"),
                   QStringLiteral("--backend"), QStringLiteral("cpu")}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        BrightestRegionLayer* layer = module->regionLayer();
        const QVector<Region> shown = shownRegions(layer, module->model());
        QVERIFY2(sameRegions(shown, expected), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(expected))));
        QCOMPARE(shown.size(), 8);
        QVERIFY(layer->fadesWithRank());
        for (int i = 1; i < shown.size(); ++i) {
            QVERIFY(shown[i].sum <= shown[i - 1].sum);
            QVERIFY(layer->opacityForRank(shown[i].rank) < layer->opacityForRank(shown[i - 1].rank));
        }
    }

    // Overlap mode's Distinct (--distinct F): enabled in overlap mode only, on at 0.2 by default in the window,
    // the run equals the CLI's with --distinct, and sessions keep the check and F.
    void distinctControl() {
        const Image image = test::randomIntImage(36, 28, -60, 60, test::Seed{4});
        const QString file = writeMatrix(image, QStringLiteral("brightest-distinct.csv"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, file));
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        panel->modeBox()->setCurrentIndex(panel->modeBox()->findData(QStringLiteral("disjoint")));
        QVERIFY(panel->maxBoxBox()->isEnabled() && panel->minSnrBox()->isEnabled());
        QVERIFY(!panel->distinctCheck()->isEnabled());
        QVERIFY(!panel->distinctBox()->isEnabled());
        QVERIFY(!module->currentParams(6).distinct);
        panel->modeBox()->setCurrentIndex(panel->modeBox()->findData(QStringLiteral("overlap")));
        QVERIFY(panel->distinctCheck()->isEnabled());
        QVERIFY(panel->distinctCheck()->isChecked());
        QVERIFY(panel->distinctBox()->isEnabled());
        QCOMPARE(panel->distinctBox()->value(), 0.2); // the spec's preset for every kind
        panel->distinctCheck()->setChecked(false);
        QVERIFY(!panel->distinctBox()->isEnabled());
        panel->distinctCheck()->setChecked(true);
        panel->distinctBox()->setValue(0.25);
        panel->kBox()->setValue(6);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        // The disjoint search's filters are off in overlap mode (the CLI refuses them there): a value left in them
        // (a FITS image's defaults) neither reaches the run nor makes it fail. The search bound (Max box) applies to
        // both modes: enabled, and carried into the run (issue 14; 0 here, so the run below is unbounded).
        panel->minSnrBox()->setValue(5.0);
        for (QWidget* w : {static_cast<QWidget*>(panel->minSnrBox()), static_cast<QWidget*>(panel->minAreaBox()),
                           static_cast<QWidget*>(panel->maxSizeBox())})
            QVERIFY(!w->isEnabled());
        QVERIFY(panel->maxBoxBox()->isEnabled());
        panel->maxBoxBox()->setValue(7);
        QCOMPARE(module->currentParams(6).maxBox.get(), 7);
        panel->maxBoxBox()->setValue(0);
        const BrightestParams overlapParams = module->currentParams(6);
        QCOMPARE(overlapParams.minSnr, 0.0);
        QVERIFY(overlapParams.maxBox.isNone());
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        const BrightestResult& result = module->lastResults().front();
        QVERIFY(result.distinct && *result.distinct == 0.25);
        QString error;
        const QVector<Region> expected = cliRegions(
            file, {QStringLiteral("--k"), QStringLiteral("6"), QStringLiteral("--mode"), QStringLiteral("overlap"),
                   QStringLiteral("--distinct"), QStringLiteral("0.25"), QStringLiteral("--backend"), QStringLiteral("cpu")}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QVector<Region> shown = shownRegions(module->regionLayer(), module->model());
        QVERIFY2(sameRegions(shown, expected), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(expected))));
        // The session keeps the check and F.
        const QJsonObject state = module->saveSession();
        const QJsonObject saved = state[QStringLiteral("form")].toObject();
        QCOMPARE(saved[QStringLiteral("distinct")].toDouble(), 0.25);
        panel->distinctBox()->setValue(0.6);
        panel->distinctCheck()->setChecked(false);
        SessionImages inputs;
        inputs.insert(QString(), window.context().image());
        module->prepareSession(state, inputs)();
        QCOMPARE(panel->distinctBox()->value(), 0.25);
        QVERIFY(panel->distinctCheck()->isChecked());
        QVERIFY(module->lastResults().front().distinct && *module->lastResults().front().distinct == 0.25);
        QJsonObject off = state;
        QJsonObject offPanel = saved;
        offPanel[QStringLiteral("distinct")] = QJsonValue::Null;
        off[QStringLiteral("form")] = offPanel;
        module->prepareSession(off, inputs)();
        QVERIFY(!panel->distinctCheck()->isChecked());
        QVERIFY(!panel->distinctBox()->isEnabled());
    }
};

GLINT_GUI_TEST_MAIN(TestGuiBrightestOverlays)
#include "test_gui_brightest_overlays.moc"
