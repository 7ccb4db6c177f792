// Brightest region's results in the window: the regions drawn are those `glint-cli brightest --json`
// reports for the same file and parameters (generated images with blanks, an ROI drawn with the tool, images
// shown y up: a star field and the FITS sample), with their result rows and timing record; rows and shapes
// select each other; an empty result and a saturated percentile pivot say why in words; Cancel stops a long
// run within a second and leaves nothing behind.
// Screenshots: set GLINT_SCREENSHOT_DIR to keep the window grabs the tests take (FITS, star field).
#include "tests/gui/test_gui_brightest_support.h"

#include "ui/AppContext.h"
#include "ui/docks/LayerDock.h"
#include "ui/docks/ResultsDock.h"
#include "core/io/ImageLoader.h"
#include "ui/jobs/JobRunner.h"
#include "ui/jobs/JobStatusWidget.h"
#include "ui/results/TimingLog.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStatusBar>
#include <QTableView>

#include <cmath>
#include <random>
#include <utility>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

class TestGuiBrightestResults : public QObject {
    Q_OBJECT

    // K=5 at p99 on a y-up image: the CLI's regions, drawn over bright pixels (brighter than the same
    // rectangles flipped top to bottom, where a drawing that ignored y-up would put them).
    static void checkYUpRun(Image image, const QString& file, const QString& shot) {
        MainWindow window({false, false});
        showWindow(window);
        window.context().setImage(std::move(image), file);
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        plainSearch(module); // the FITS defaults (local pivot, threshold 3, min SNR 5) off: p99 as the CLI's
        panel->kBox()->setValue(5);
        setPivot(panel, QStringLiteral("p99"));
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        QString error;
        const QVector<Region> expected = cliRegions(file, {"--k", "5", "--pivot", "p99", "--backend", "cpu"}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QVector<Region> shown = shownRegions(module->regionLayer(), module->model());
        QVERIFY2(sameRegions(shown, expected), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(expected))));
        saveShot(window, shot);

        ImageCanvas* canvas = window.canvas();
        // The results dock takes its rows once the run is listed (issue 34): the canvas and its view settle first.
        QSize settled;
        QTRY_VERIFY(std::exchange(settled, canvas->size()) == canvas->size() && test::imageShown(window.context()));
        BrightestRegionLayer* layer = module->regionLayer();
        layer->setVisible(false);
        const QImage plain = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
        layer->setVisible(true);
        const QImage drawn = canvas->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const ViewTransform v = canvas->view();
        QVERIFY(v.yUp());
        const int height = window.context().image()->height();
        const auto meanGrey = [&](const QRect& pixels) {
            const QRect r = v.imageToWidget(ViewTransform::pixelArea(pixels)).toAlignedRect().intersected(plain.rect());
            double sum = 0;
            for (int y = r.top(); y <= r.bottom(); ++y)
                for (int x = r.left(); x <= r.right(); ++x) sum += qGray(plain.pixel(x, y));
            return r.isEmpty() ? 0.0 : sum / (static_cast<double>(r.width()) * r.height());
        };
        double under = 0, flipped = 0;
        for (const Region& r : shown) {
            under += meanGrey(r.rect);
            flipped += meanGrey(QRect(r.rect.x(), height - r.rect.y() - r.rect.height(), r.rect.width(), r.rect.height()));
        }
        QVERIFY2(under > flipped + 20.0 * shown.size(), qPrintable(QStringLiteral("under %1, flipped %2").arg(under).arg(flipped)));
        // The layer paints there: its colour along the rank-1 rectangle's bottom edge on screen.
        const QRectF w = v.imageToWidget(ViewTransform::pixelArea(shown[0].rect));
        const QColor colour = layer->colour();
        int onEdge = 0;
        for (int x = static_cast<int>(w.left()) + 2; x < static_cast<int>(w.right()) - 1; ++x) {
            bool hit = false;
            for (int dy = -1; dy <= 1; ++dy) {
                const QColor c = drawn.pixelColor(x, static_cast<int>(std::lround(w.bottom())) + dy);
                // Within 64 a channel: an edge between two pixel rows is drawn antialiased, a little darker (the canvas's
                // height, and so the edge's place, follows the window's layout).
                hit = hit || (std::abs(c.red() - colour.red()) < 64 && std::abs(c.green() - colour.green()) < 64 &&
                              std::abs(c.blue() - colour.blue()) < 64);
            }
            onEdge += hit;
        }
        QVERIFY2(onEdge >= static_cast<int>(w.width()) / 2 - 2, qPrintable(QStringLiteral("%1 on the edge of %2,%3 %4x%5; canvas %6x%7 drawn %8x%9").arg(onEdge).arg(w.x()).arg(w.y()).arg(w.width()).arg(w.height()).arg(canvas->width()).arg(canvas->height()).arg(drawn.width()).arg(drawn.height())));
    }

private slots:
    // Generated images written as text matrices (blanks as NaN), opened from the file as a user would.
    void matchesCli_data() {
        test::columns<bool, int, QString, QString, QRect>({"floating", "k", "pivot", "backend", "roi"});
        QTest::newRow("int k1 mean cpu") << false << 1 << "mean" << "cpu" << QRect();
        QTest::newRow("int k6 median reference") << false << 6 << "median" << "reference" << QRect();
        QTest::newRow("float+blanks k4 p80 cpu") << true << 4 << "p80" << "cpu" << QRect();
        QTest::newRow("float+blanks k3 number auto roi") << true << 3 << "0.61" << "auto" << QRect(7, 5, 40, 30);
        QTest::newRow("int k2 number roi reference") << false << 2 << "120" << "reference" << QRect(20, 10, 41, 33);
    }
    void matchesCli() {
        QFETCH(bool, floating);
        QFETCH(int, k);
        QFETCH(QString, pivot);
        QFETCH(QString, backend);
        QFETCH(QRect, roi);
        std::mt19937 rng(static_cast<unsigned>(qHash(QString::fromLatin1(QTest::currentDataTag()))));
        const Image image = floating ? test::randomFloatImage(67, 49, 0.0, 1.0, rng, 0.04)
                                     : test::randomIntImage(67, 49, -40, 255, rng, 0.0);
        const QString file = writeMatrix(image, QStringLiteral("brightest-%1.csv").arg(QTest::currentDataTag()).replace(' ', '_'));
        QVERIFY(!file.isEmpty());

        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, file));
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        panel->kBox()->setValue(k);
        setPivot(panel, pivot);
        panel->backendBox()->setCurrentText(backend);
        QStringList args{QStringLiteral("--k"), QString::number(k), QStringLiteral("--pivot"), pivot, QStringLiteral("--backend"), backend};
        if (!roi.isNull()) {
            // The ROI drawn with the panel's tool, as a user does.
            panel->drawRoiButton()->click();
            dragPixels(window.canvas(), roi.topLeft(), roi.bottomRight());
            QCOMPARE(module->roi().value_or(QRect()), roi);
            QVERIFY(module->roiLayer() && module->roiLayer()->itemCount() == 1);
            args << QStringLiteral("--roi") << QStringLiteral("%1,%2,%3,%4").arg(roi.x()).arg(roi.y()).arg(roi.width()).arg(roi.height());
        }
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        QString error;
        const QVector<Region> expected = cliRegions(file, args, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!expected.isEmpty());
        QVERIFY(module->regionLayer());
        const QVector<Region> shown = shownRegions(module->regionLayer(), module->model());
        QVERIFY2(sameRegions(shown, expected), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(expected))));
        for (const Region& r : shown) {
            if (!roi.isNull()) QVERIFY(roi.contains(r.rect));
            for (int y = r.rect.top(); y <= r.rect.bottom(); ++y) // blanks are never inside a region
                for (int x = r.rect.left(); x <= r.rect.right(); ++x) QVERIFY(!image.isBlank(x, y));
        }
        // The result rows (rank, x, y, width, height, sum, mean) are the regions, linked to their shapes.
        ResultsModel* model = module->model();
        QCOMPARE(window.resultsDock()->currentModel(), model);
        QCOMPARE(model->columns(), (QStringList{"rank", "x", "y", "width", "height", "sum", "mean", "flux", "SNR",
                                                "centroid x", "centroid y", "flags"}));
        QCOMPARE(model->rowCount(), expected.size());
        const BrightestResult& result = module->lastResults().front();
        for (int row = 0; row < model->rowCount(); ++row) {
            const RegionMark& mark = module->regionLayer()->regions()[model->overlayItem(row)];
            QCOMPARE(model->value(row, 0).toInt(), mark.rank);
            QCOMPARE(QRect(model->value(row, 1).toInt(), model->value(row, 2).toInt(), model->value(row, 3).toInt(),
                           model->value(row, 4).toInt()),
                     mark.pixels);
            QCOMPARE(model->value(row, 6).toDouble(), result.regionMean(result.regions[row]));
            QVERIFY(mark.label.startsWith(QStringLiteral("#%1 ").arg(mark.rank)));
        }
        // One timing record with the run's parameters and named steps.
        const auto& records = window.context().timingLog()->records();
        QCOMPARE(records.size(), std::size_t(1));
        QCOMPARE(records[0].algorithm, module->name());
        QCOMPARE(records[0].imageSize, QSize(67, 49));
        QCOMPARE(records[0].backend, QString::fromLatin1(backendName(result.backend)));
        QVERIFY(records[0].parameters.contains(QStringLiteral("k=%1").arg(k)));
        QVERIFY(!records[0].steps.empty());
    }

    // Rows and rectangles select each other; double-clicking a row centres the view on its region.
    void resultsLinkedToOverlay() {
        std::mt19937 rng(11);
        MainWindow window({false, false});
        showWindow(window);
        window.context().setImage(test::randomIntImage(90, 70, -100, 100, rng), QStringLiteral("random"));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        module->panel()->kBox()->setValue(4);
        module->panel()->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->actions().at(1)->trigger(); }, &message), qPrintable(message));
        BrightestRegionLayer* layer = module->regionLayer();
        QVERIFY(layer && layer->itemCount() == 4);
        ResultsDock* results = window.resultsDock();
        QCOMPARE(results->currentLayer(), static_cast<OverlayLayer*>(layer));
        results->selectRow(2);
        QCOMPARE(layer->selected(), module->model()->overlayItem(2));
        layer->setSelected(1);
        QCOMPARE(results->selectedRow(), module->model()->rowForOverlayItem(1));
        // A click on the middle of a region's edge (the default tool) selects its row.
        ImageCanvas* canvas = window.canvas();
        canvas->setScaleAt(6.0, QPointF(canvas->width() / 2.0, canvas->height() / 2.0));
        const double tolerance = 6.0 / canvas->scale();
        for (int item = 0; item < 4; ++item) {
            const QRectF b = layer->itemBounds(item);
            canvas->centerOn(b.center());
            const ViewTransform v = canvas->view();
            bool clicked = false;
            for (const QPointF& p : {QPointF(b.center().x(), b.top()), QPointF(b.center().x(), b.bottom()),
                                     QPointF(b.left(), b.center().y()), QPointF(b.right(), b.center().y())}) {
                if (layer->hitTest(p, tolerance) != item) continue; // an edge shared with a neighbour
                const QPoint w = v.imageToWidget(p).toPoint();
                if (!canvas->rect().contains(w)) continue;
                QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w);
                clicked = true;
                break;
            }
            if (!clicked) continue;
            QCOMPARE(layer->selected(), item);
            QCOMPARE(results->selectedRow(), module->model()->rowForOverlayItem(item));
        }
        // Double-clicking a row centres the view on its region.
        QAbstractItemModel* shown = results->table()->model();
        const QModelIndex index = shown->index(3, 0);
        const int item = module->model()->overlayItem(shown->data(index, ResultsModel::RawValueRole).toInt() - 1);
        emit results->table()->doubleClicked(index);
        const QPointF centre = canvas->view().imageToWidget(layer->itemBounds(item).center());
        QVERIFY(std::abs(centre.x() - canvas->width() / 2.0) < 1e-6 && std::abs(centre.y() - canvas->height() / 2.0) < 1e-6);
        // Hide and recolour through the Layers dock.
        QListWidget* list = window.layerDock()->list();
        const auto entry = [&] { return list->findItems(layer->name(), Qt::MatchExactly).value(0); }; // rebuilt on changes
        QVERIFY(entry());
        entry()->setCheckState(Qt::Unchecked);
        QVERIFY(!layer->isVisible());
        entry()->setCheckState(Qt::Checked);
        QVERIFY(layer->isVisible());
        // A second run hides the first one's layer (still listed, to tick back on).
        QVERIFY2(runAndWait(module, [&] { module->actions().at(0)->trigger(); }, &message), qPrintable(message));
        QVERIFY(module->regionLayer() != layer);
        QVERIFY(!layer->isVisible());
        QCOMPARE(module->regionLayer()->itemCount(), 1);
        QCOMPARE(results->resultSetCount(), 2);
        QCOMPARE(window.context().timingLog()->records().size(), std::size_t(2));
    }

    // Nothing above the pivot: an empty result, said in words, not an error.
    void emptyResult() {
        MainWindow window({false, false});
        showWindow(window);
        Image flat(40, 30, SampleType::UInt8);
        window.context().setImage(std::move(flat), QStringLiteral("flat"));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->run(); }, &message), qPrintable(message));
        QCOMPARE(module->regionLayer()->itemCount(), 0);
        QCOMPARE(module->model()->rowCount(), 0);
        // Why, in the panel, in the status bar and above the (empty) table of the results dock.
        const QString why = QStringLiteral("no region: every pixel is at or below the pivot mean = 0 (the image maximum)");
        QVERIFY2(module->panel()->status().contains(why), qPrintable(module->panel()->status()));
        QVERIFY2(window.statusBar()->currentMessage().contains(why), qPrintable(window.statusBar()->currentMessage()));
        ResultsDock* dock = window.resultsDock();
        QVERIFY(dock->resultSetNote(0).contains(why));
        QVERIFY(dock->noteLabel()->isVisibleTo(dock));
        QVERIFY(dock->noteLabel()->text().contains(why));

        // Everything excluded: said so.
        module->addExclusionRectangle(QRect(0, 0, 40, 30));
        QVERIFY2(runAndWait(module, [&] { module->run(1); }, &message), qPrintable(message));
        QVERIFY2(dock->noteLabel()->text().contains(QStringLiteral("no region: no pixel is left to search")),
                 qPrintable(dock->noteLabel()->text()));
        // A set with regions has no note; choosing the empty one again shows it.
        module->clearExclusions();
        setPivot(module->panel(), QStringLiteral("-1"));
        QVERIFY2(runAndWait(module, [&] { module->run(1); }, &message), qPrintable(message));
        QCOMPARE(module->model()->rowCount(), 1);
        QVERIFY(!dock->noteLabel()->isVisibleTo(dock));
        dock->setCurrentResultSet(0);
        QVERIFY(dock->noteLabel()->isVisibleTo(dock) && dock->noteLabel()->text().contains(why));
    }

    // An 8-bit image whose p99 is its maximum: the window takes the largest value below the maximum as the
    // pivot (the saturated pixels are then the answer) and says so; an ROI inside the saturated area, whose
    // pixels all equal the maximum, still gets an empty answer with its reason.
    void saturatedPercentilePivot() {
        MainWindow window({false, false});
        showWindow(window);
        Image image = test::randomIntImage(100, 80, 0, 200, test::Seed{17});
        std::vector<std::uint8_t> samples(100 * 80);
        int below = 0;
        for (int y = 0; y < 80; ++y)
            for (int x = 0; x < 100; ++x) {
                const bool saturated = x >= 60 && x < 90 && y >= 20 && y < 50;
                const int v = saturated ? 255 : static_cast<int>(image.value(x, y));
                samples[static_cast<std::size_t>(y) * 100 + x] = static_cast<std::uint8_t>(v);
                if (!saturated) below = std::max(below, v);
            }
        window.context().setImage(Image::fromSamples<std::uint8_t>(100, 80, std::move(samples)), QStringLiteral("saturated"));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        setPivot(module->panel(), QStringLiteral("p99"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->run(1); }, &message), qPrintable(message));
        const BrightestResult& r = module->lastResults().front();
        QCOMPARE(r.pivot, double(below));
        QCOMPARE(r.regions.size(), std::size_t(1));
        QCOMPARE(QRect(r.regions[0].x, r.regions[0].y, r.regions[0].width, r.regions[0].height), QRect(60, 20, 30, 30));
        const QString said = QStringLiteral("p99 = 255 is the image maximum, so no pixel lies above it: the pivot used is %1, "
                                            "the largest value below the maximum").arg(below);
        QVERIFY2(window.statusBar()->currentMessage().contains(said), qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(module->panel()->status().contains(said), qPrintable(module->panel()->status()));
        QVERIFY(window.resultsDock()->noteLabel()->text().contains(said));
        QVERIFY(window.context().timingLog()->records().back().parameters.contains(QStringLiteral("pivot=p99 ")));
        QVERIFY(window.context().timingLog()->records().back().parameters.contains(QStringLiteral("pivot_used=%1").arg(below)));

        // Inside the saturated area every pixel is 255: nothing lies below the maximum to take.
        module->setRoi(QRect(65, 25, 10, 10));
        QVERIFY2(runAndWait(module, [&] { module->run(1); }, &message), qPrintable(message));
        QVERIFY(module->lastResults().front().regions.empty());
        const QString why = QStringLiteral("no region: every pixel is at or below the pivot p99 = 255 (the maximum of the included pixels)");
        QVERIFY2(window.statusBar()->currentMessage().contains(why), qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(window.resultsDock()->noteLabel()->text().contains(why));

        // A number pivot is the user's own: not replaced, only explained.
        module->clearRoi();
        setPivot(module->panel(), QStringLiteral("255"));
        QVERIFY2(runAndWait(module, [&] { module->run(1); }, &message), qPrintable(message));
        QVERIFY(module->lastResults().front().regions.empty());
        QVERIFY2(window.resultsDock()->noteLabel()->text().contains(
                     QStringLiteral("no region: every pixel is at or below the pivot 255 (the image maximum)")),
                 qPrintable(window.resultsDock()->noteLabel()->text()));
    }

    // Images shown y up (FITS, as DS9 does: row 0 at the bottom): the rectangles are the CLI's regions and
    // land on the bright pixels on screen. A star field made here (stars in the lower rows only, shown y up),
    // and the FITS sample once the FITS loader is in.
    void yUpStarField() {
        std::mt19937 rng(21);
        std::normal_distribution<double> noise(100.0, 4.0);
        std::vector<float> pixels(200 * 150);
        for (float& v : pixels) v = static_cast<float>(noise(rng));
        const double stars[][3] = {{30, 20, 900}, {150, 35, 700}, {90, 12, 500}, {60, 50, 400}, {175, 8, 650}};
        for (const auto& [sx, sy, peak] : stars)
            for (int y = 0; y < 150; ++y)
                for (int x = 0; x < 200; ++x)
                    pixels[y * 200 + x] += static_cast<float>(peak * std::exp(-((x - sx) * (x - sx) + (y - sy) * (y - sy)) / 18.0));
        const QString file = writeMatrix(Image::fromSamples<float>(200, 150, std::move(pixels)), QStringLiteral("stars.csv"));
        Image image = loadImage(file.toStdString(), {});
        image.meta.displayYUp = true;
        checkYUpRun(std::move(image), file, QStringLiteral("stars-yup-k5-p99"));
    }
    void fitsYUp() {
        const QString file = test::samplePath(QStringLiteral("ngc1316o.fit"));
        if (!QFile::exists(file)) QSKIP("the FITS sample is missing");
        Image image;
        try {
            image = loadImage(file.toStdString(), {});
        } catch (const std::exception& e) {
            QSKIP(qPrintable(QStringLiteral("cannot read the FITS sample here: %1").arg(QString::fromUtf8(e.what()))));
        }
        QVERIFY(image.meta.displayYUp);
        checkYUpRun(std::move(image), file, QStringLiteral("ngc1316-k5-p99"));
    }

    // Cancel on a running reference search: the runner is idle again soon after (within a second here;
    // the 100 ms product target is a bench row, glint-cli bench cancel), and nothing is shown. The job
    // is held at its first progress report until Cancel is clicked, so it cannot finish first.
    void cancelStopsTheRun() {
        std::mt19937 rng(5);
        MainWindow window({false, false});
        showWindow(window);
        window.context().setImage(test::randomIntImage(1200, 1200, 0, 255, rng), QStringLiteral("large"));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        module->panel()->backendBox()->setCurrentText(QStringLiteral("reference"));
        QSignalSpy cancelled(module, &BrightestModule::runCancelled);
        test::HoldJobAtProgress hold;
        QVERIFY(module->run());
        JobRunner* jobs = window.context().jobs();
        QTRY_VERIFY_WITH_TIMEOUT(hold.held(), 30000);
        QVERIFY(jobs->isBusy());
        QVERIFY(!module->panel()->runButton()->isEnabled());
        const qint64 after = test::clickCancelAndTime(window, [&] { hold.release(); });
        QVERIFY2(after >= 0, "the run did not stop");
        qInfo("cancel to idle: %lld ms", static_cast<long long>(after));
        QVERIFY2(after < 1000, qPrintable(QStringLiteral("cancel took %1 ms").arg(after)));
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!jobs->isBusy());
        QVERIFY(module->panel()->runButton()->isEnabled());
        QCOMPARE(module->panel()->status(), QStringLiteral("Cancelled."));
        QVERIFY(!module->regionLayer());
        QCOMPARE(window.resultsDock()->resultSetCount(), 0);
        QVERIFY(window.context().timingLog()->records().empty());
    }
};

GLINT_GUI_TEST_MAIN(TestGuiBrightestResults)
#include "test_gui_brightest_results.moc"
