// The framework later algorithms plug into, exercised through the Region statistics module: Analyze menu
// and parameters panel, a canvas tool feeding a job, results rows linked both ways with the overlay, the
// timing record, the layer list; and the histogram, whose dragged limits become manual display limits.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "ui/canvas/CanvasTool.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/HistogramWidget.h"
#include "ui/docks/DisplayDock.h"
#include "ui/docks/LayerDock.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/docks/TimingDock.h"
#include "core/io/ImageStats.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/RegionStatisticsModule.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/TimingLog.h"

#include <QComboBox>
#include <QListWidget>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeWidget>

#include <algorithm>
#include <random>

using namespace glint;
using namespace glint::ui;

class TestGuiFramework : public QObject {
    Q_OBJECT

private:
    // Statistics of a rectangle computed here, independently of the module.
    static ImageStats expectedStats(const Image& image, const QRect& r) {
        std::vector<double> v;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x)
                if (!image.isBlank(x, y)) v.push_back(image.value(x, y));
        std::sort(v.begin(), v.end());
        ImageStats s;
        s.count = v.size();
        s.min = v.front();
        s.max = v.back();
        long double sum = 0;
        for (double x : v) sum += x;
        s.mean = static_cast<double>(sum / v.size());
        s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
        return s;
    }

private slots:
    void moduleIsRegistered() {
        MainWindow window({false, false});
        auto* module = test::findModule<RegionStatisticsModule>(window);
        QVERIFY(module);
        // Its actions are in the Analyze menu and its panel in the parameters dock.
        QMenu* analyze = test::menuNamed(window, QStringLiteral("Analyze"));
        QVERIFY(analyze);
        for (QAction* a : module->actions()) QVERIFY(analyze->actions().contains(a));
        QVERIFY(window.parametersDock()->panelCount() >= 1);
        QCOMPARE(window.parametersDock()->currentTitle(), module->name());
    }

    void regionStatisticsEndToEnd() {
        Image image = test::randomIntImage(61, 47, -1000, 5000, test::Seed{7}, 0.05);
        const Image copy = image; // for the expected values
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1100, 800)));
        window.context().setImage(std::move(image), QStringLiteral("random"));
        GLINT_WAIT_FOR_IMAGE(window);
        auto* module = test::findModule<RegionStatisticsModule>(window);

        // Draw a rectangle with the module's tool, as a user does (Analyze ▸ Draw Rectangle, drag).
        module->actions().first()->trigger();
        ImageCanvas* canvas = window.canvas();
        QVERIFY(canvas->tool() != static_cast<CanvasTool*>(canvas->defaultTool()));
        const ViewTransform v = canvas->view();
        const QRect wanted(5, 7, 20, 11);
        QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(5, 7)).toPoint());
        QTest::mouseMove(canvas, v.imageToWidget(QPointF(24, 17)).toPoint());
        QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(24, 17)).toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(module->model() && module->model()->rowCount() == 1, 5000);
        // And the whole image from the menu.
        QTRY_VERIFY_WITH_TIMEOUT(!window.context().jobs()->isBusy(), 5000);
        module->actions().at(1)->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(module->model()->rowCount() == 2, 5000);

        const ResultsModel* model = module->model();
        const QList<QRect> rects{wanted, QRect(0, 0, 61, 47)};
        for (int row = 0; row < 2; ++row) {
            const ImageStats e = expectedStats(copy, rects[row]);
            QCOMPARE(model->value(row, 1).toInt(), rects[row].x());
            QCOMPARE(model->value(row, 3).toInt(), rects[row].width());
            QCOMPARE(model->value(row, 5).toDouble(), static_cast<double>(e.count));
            QCOMPARE(model->value(row, 6).toDouble(), e.min);
            QCOMPARE(model->value(row, 7).toDouble(), e.max);
            QCOMPARE(model->value(row, 8).toDouble(), e.mean);
            QCOMPARE(model->value(row, 9).toDouble(), e.median);
            QCOMPARE(module->layer()->shape(model->overlayItem(row)).pixelRect(), rects[row]);
        }

        // Rows and shapes are linked both ways.
        ResultsDock* results = window.resultsDock();
        QCOMPARE(results->currentModel(), model);
        results->selectRow(0);
        QCOMPARE(module->layer()->selected(), model->overlayItem(0));
        module->layer()->setSelected(model->overlayItem(1));
        QCOMPARE(results->selectedRow(), 1);
        // A click on the drawn rectangle's edge (the default tool again, after Esc: drawing tools stay
        // armed) selects its row.
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(canvas->defaultTool()));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(4.5, 12)).toPoint());
        QCOMPARE(results->selectedRow(), 0);
        // Double-clicking a row centres the view on its shape.
        canvas->setScaleAt(8.0, QPointF(0, 0));
        QAbstractItemModel* shown = results->table()->model(); // sortable: find the row of #1
        QModelIndex index;
        for (int r = 0; r < shown->rowCount(); ++r)
            if (shown->index(r, 0).data().toString() == QLatin1String("1")) index = shown->index(r, 0);
        QVERIFY(index.isValid());
        emit results->table()->doubleClicked(index);
        const QPointF centre = canvas->view().imageToWidget(module->layer()->itemBounds(0).center());
        QVERIFY(std::abs(centre.x() - canvas->width() / 2.0) < 1e-6 && std::abs(centre.y() - canvas->height() / 2.0) < 1e-6);

        // The timing dock lists both runs with their named steps.
        const TimingLog& log = *window.context().timingLog();
        QCOMPARE(log.records().size(), std::size_t(2));
        QCOMPARE(log.records()[0].algorithm, module->name());
        QCOMPARE(log.records()[0].imageSize, QSize(61, 47));
        QCOMPARE(log.records()[0].steps.size(), std::size_t(2));
        QCOMPARE(window.timingDock()->tree()->topLevelItemCount(), 2);
        QCOMPARE(window.timingDock()->tree()->topLevelItem(0)->childCount(), 2);

        // The layer list shows the module's layer; unticking it hides the layer.
        QListWidget* list = window.layerDock()->list();
        QCOMPARE(list->count(), 1);
        QCOMPARE(list->item(0)->text(), module->name());
        list->item(0)->setCheckState(Qt::Unchecked);
        QVERIFY(!module->layer()->isVisible());

        // A new image drops the old results and layers.
        window.context().setImage(Image(10, 10, SampleType::UInt8), QStringLiteral("next"));
        QCOMPARE(results->resultSetCount(), 0);
        QVERIFY(window.context().layers()->layers().isEmpty());
        QCOMPARE(list->count(), 0);
    }

    void timingSpeedupAgainstReference() {
        TimingLog log;
        RunRecord ref;
        ref.algorithm = QStringLiteral("Brightest region");
        ref.backend = QStringLiteral("reference");
        ref.imagePath = QStringLiteral("a.png");
        ref.imageSize = QSize(100, 100);
        ref.parameters = QStringLiteral("k=1");
        ref.totalMs = 120.0;
        RunRecord fast = ref;
        fast.backend = QStringLiteral("cpu");
        fast.totalMs = 10.0;
        RunRecord other = fast;
        other.parameters = QStringLiteral("k=2");
        log.add(ref);
        log.add(fast);
        log.add(other);
        QVERIFY(!log.speedupAgainstReference(0)); // the reference itself
        QCOMPARE(*log.speedupAgainstReference(1), 12.0);
        QVERIFY(!log.speedupAgainstReference(2)); // different parameters: no reference
        TimingDock dock(log);
        QCOMPARE(dock.tree()->topLevelItem(1)->text(6), QStringLiteral("12.0×"));
    }

    void histogramDragSetsManualLimits() {
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        AppContext& ctx = window.context();
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::Percentile);
        const DisplayLimits before = ctx.displayLimits();
        HistogramWidget* histogram = window.displayDock()->histogram();
        QVERIFY(histogram->isVisible());
        QCOMPARE(histogram->limits().low, before.low);

        // Drag the low handle to the value 100.
        const int y = static_cast<int>(histogram->plotRect().center().y());
        const QPoint from(static_cast<int>(std::lround(histogram->valueToX(before.low))), y);
        const QPoint to(static_cast<int>(std::lround(histogram->valueToX(100.0))), y);
        QSignalSpy dragged(histogram, &HistogramWidget::limitsDragged);
        QTest::mousePress(histogram, Qt::LeftButton, Qt::NoModifier, from);
        QMouseEvent move(QEvent::MouseMove, QPointF(to), histogram->mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(histogram, &move);
        QTest::mouseRelease(histogram, Qt::LeftButton, Qt::NoModifier, to);
        QVERIFY(dragged.count() >= 1);
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::Manual);
        const double low = ctx.displayLimits().low;
        QVERIFY2(std::abs(low - 100.0) <= histogram->histogram().binWidth() + 1.0, qPrintable(QString::number(low)));
        QCOMPARE(ctx.displayLimits().high, before.high);
        QCOMPARE(window.displayDock()->limitsBox()->currentText(), QStringLiteral("manual"));
        // The image is drawn again with the new limits: value 100 now shows black.
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(ctx.frame()->limits.low, low);
        const Image& image = *ctx.image();
        for (int i = 0; i < 512 * 512; i += 97) {
            if (image.value(static_cast<std::size_t>(i)) <= low) {
                QCOMPARE(qGray(ctx.frame()->pixels.pixel(i % 512, i / 512)), 0);
                break;
            }
        }
        // Back to zscale from the dock: the limits are computed again.
        QComboBox* limits = window.displayDock()->limitsBox();
        limits->setCurrentIndex(limits->findText(QStringLiteral("zscale")));
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(ctx.displaySettings().limits, LimitsMode::ZScale);
        QCOMPARE(ctx.displayLimits().low, zscaleLimits(image).low);
        QCOMPARE(histogram->limits().high, zscaleLimits(image).high);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiFramework)
#include "test_gui_framework.moc"
