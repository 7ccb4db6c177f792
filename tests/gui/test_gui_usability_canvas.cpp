// The canvas as users meet it (issue 17), driven through the real window on the offscreen platform at
// 1280 × 800: drawing tools stay armed until Esc or another tool; region labels never overlap, keep off
// the regions and stay in view (the sweep legend too), in the window and in the CLI's overlay.
#include "tests/gui/test_gui_usability_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/gui/test_gui_brightest_support.h"
#include "tests/support/TestSupport.h"

#include "core/export/OverlayImage.h"
#include "ui/canvas/CanvasTool.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/ParametersDock.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/overlay/LayerStack.h"

#include <QFontMetricsF>
#include <QPushButton>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;
using namespace glint::test::usability;

namespace {

// Records the area it is given to paint in.
class AreaProbe : public OverlayLayer {
public:
    AreaProbe() : OverlayLayer(QStringLiteral("probe"), Qt::white) {}
    void paint(QPainter& painter, const ViewTransform&) const override { areas.append(paintArea(painter)); }
    mutable QVector<QRectF> areas;
};

bool anyOverlap(const QVector<QRectF>& boxes) {
    for (int i = 0; i < boxes.size(); ++i)
        for (int j = i + 1; j < boxes.size(); ++j)
            if (boxes[i].intersects(boxes[j])) return true;
    return false;
}

} // namespace

class TestGuiUsabilityCanvas : public QObject {
    Q_OBJECT

private slots:
    // (4) The exclusion rectangle tool draws one exclusion per drag until Esc; only then does a drag pan.
    // The polygon and ROI tools likewise; choosing another tool replaces the armed one.
    void drawingToolsStayArmed() {
        MainWindow window({false, false});
        QVERIFY(showWithSample(window, QStringLiteral("synthetic-mammogram.png")));
        BrightestModule* module = findModule(window);
        QVERIFY(module);
        // The mammogram's auto-exclusions first (they come when it opens), so that the count is the drags'.
        QVERIFY(glint::test::brightest::waitForAutoExclusion(module));
        module->clearExclusions();
        ImageCanvas* canvas = window.canvas();
        window.parametersDock()->showPanel(module->name());
        module->panel()->excludeRectangleButton()->click();
        CanvasTool* armed = canvas->tool();
        QVERIFY(armed != static_cast<CanvasTool*>(canvas->defaultTool()));
        QVERIFY2(window.toolHint().contains(QStringLiteral("Esc")), qPrintable(window.toolHint()));

        const ViewTransform before = canvas->view();
        dragPixels(canvas, QPoint(700, 850), QPoint(1000, 1000));
        QCOMPARE(module->exclusionCount(), 1);
        QCOMPARE(canvas->tool(), armed); // still armed
        dragPixels(canvas, QPoint(800, 30), QPoint(1000, 110));
        QCOMPARE(module->exclusionCount(), 2); // the second drag excludes too …
        QCOMPARE(canvas->view().imageToWidget(QPointF(0, 0)), before.imageToWidget(QPointF(0, 0))); // … and does not pan
        dragPixels(canvas, QPoint(20, 300), QPoint(60, 340));
        QCOMPARE(module->exclusionCount(), 3);

        // Esc: back to panning; a drag now moves the view and adds nothing.
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(canvas->defaultTool()));
        QVERIFY(window.toolHint().isEmpty());
        canvas->setScaleAt(canvas->scale() * 2.0, QPointF(canvas->width() / 2.0, canvas->height() / 2.0));
        const QPointF origin = canvas->view().imageToWidget(QPointF(0, 0));
        const QPoint from(canvas->width() / 2, canvas->height() / 2);
        QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(canvas, from + QPoint(40, 30));
        QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, from + QPoint(40, 30));
        QCOMPARE(module->exclusionCount(), 3);
        QVERIFY(canvas->view().imageToWidget(QPointF(0, 0)) != origin);
        canvas->fitToWindow();

        // Two polygons in a row with the polygon tool.
        module->panel()->excludePolygonButton()->click();
        CanvasTool* polygonTool = canvas->tool();
        QVERIFY(polygonTool != armed && polygonTool != static_cast<CanvasTool*>(canvas->defaultTool()));
        for (int k = 0; k < 2; ++k) {
            const ViewTransform v = canvas->view();
            const QList<QPointF> corners{QPointF(400 + 100 * k, 400), QPointF(460 + 100 * k, 400), QPointF(430 + 100 * k, 460)};
            for (const QPointF& c : corners) QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(c).toPoint());
            QTest::keyClick(canvas, Qt::Key_Return);
            QCOMPARE(module->exclusionCount(), 4 + k);
            QCOMPARE(canvas->tool(), polygonTool);
        }
        // Another tool replaces it: the ROI, drawn twice (the second replaces the first), still armed.
        module->panel()->drawRoiButton()->click();
        CanvasTool* roiTool = canvas->tool();
        QVERIFY(roiTool != polygonTool && roiTool != static_cast<CanvasTool*>(canvas->defaultTool()));
        dragPixels(canvas, QPoint(300, 200), QPoint(700, 700));
        dragPixels(canvas, QPoint(350, 250), QPoint(750, 750));
        const QRect roi = module->roi().value_or(QRect());
        QVERIFY2(std::abs(roi.left() - 350) <= 2 && std::abs(roi.top() - 250) <= 2 && std::abs(roi.right() - 750) <= 2 &&
                     std::abs(roi.bottom() - 750) <= 2,
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(roi.x()).arg(roi.y()).arg(roi.width()).arg(roi.height())));
        QCOMPARE(canvas->tool(), roiTool);
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(canvas->defaultTool()));
    }

    // (5) Label placement: no two labels overlap, all lie in the view, a label keeps off its region when
    // there is room outside, a top rank stands away with a leader line when there is not (lower ranks never do:
    // they are left out), and rank 1 keeps its label when its box touches the top edge of the view.
    void labelsArePlacedWithoutOverlaps() {
        QFont font;
        font.setPointSizeF(9.0);
        const QFontMetricsF metrics(regionLabelFont(font));
        const QRectF viewport(0, 0, 900, 600);
        // Rank 1 touches the top edge and spans the whole width: no room above; nested and adjacent small
        // regions below compete for the same spots.
        QVector<RegionLabel> labels;
        labels.append({QRectF(0, 0, 900, 120), QStringLiteral("#1  987654"), Qt::yellow, 1.0, false, true});
        for (int i = 0; i < 30; ++i) {
            const double x = 200 + (i % 10) * 24.0, y = 300 + (i / 10) * 20.0;
            labels.append({QRectF(x, y, 10, 8), QStringLiteral("#%1  %2").arg(i + 2).arg(50000 - i), Qt::yellow, 1.0, false, false,
                           i + 2 <= kAlwaysLabelledRanks});
        }
        const QVector<PlacedLabel> placed = placeRegionLabels(labels, metrics, viewport, {});
        QVERIFY(!placed.isEmpty());
        QCOMPARE(placed.first().index, 0); // rank 1 is shown
        QVector<QRectF> boxes;
        bool anyLeader = false;
        for (const PlacedLabel& p : placed) {
            boxes.append(p.box);
            QVERIFY(viewport.contains(p.box));
            if (p.index > 0) QVERIFY2(!p.box.intersects(labels[p.index].target), "a small region's label covers it");
            anyLeader = anyLeader || !p.leader.isNull();
            if (p.index > 0 && !labels[p.index].priority) QVERIFY2(p.leader.isNull(), "a lower rank's label with a leader line");
        }
        QVERIFY(!anyOverlap(boxes));
        QVERIFY2(anyLeader, "crowded top ranks should stand away with leader lines");
        for (int rank = 1; rank <= kAlwaysLabelledRanks; ++rank) // the top ranks all find room
            QVERIFY2(std::any_of(placed.cbegin(), placed.cend(), [&](const PlacedLabel& p) { return p.index == rank - 1; }),
                     qPrintable(QString::number(rank)));
        QVERIFY2(placed.size() >= 12, qPrintable(QString::number(placed.size()))); // and some of the rest

        // A lone small region: its label right beside it (touching, no leader), off its pixels.
        const QVector<PlacedLabel> lone = placeRegionLabels({{QRectF(400, 300, 12, 12), QStringLiteral("#1  5"), Qt::red, 1.0, false, true}},
                                                            metrics, viewport, {});
        QCOMPARE(lone.size(), 1);
        QVERIFY(lone[0].leader.isNull());
        QVERIFY(!lone[0].box.intersects(QRectF(400, 300, 12, 12)));
        QVERIFY(lone[0].box.adjusted(-4, -4, 4, 4).intersects(QRectF(400, 300, 12, 12)));
    }

    // (5) In the window: K brightest regions on the mammogram — labels apart, rank 1's label present and
    // off the lesion; the sweep legend kept inside a small view.
    void labelsInTheWindowAndTheLegend() {
        MainWindow window({false, false});
        QVERIFY(showWithSample(window, QStringLiteral("synthetic-mammogram.png")));
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        panel->kBox()->setValue(8);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        setPivot(panel, QStringLiteral("p95"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        ImageCanvas* canvas = window.canvas();
        BrightestRegionLayer* layer = module->regionLayer();
        QVERIFY(layer && layer->itemCount() == 8);
        for (double zoom : {1.0, 2.5}) { // fitted, then zoomed in around rank 1
            if (zoom > 1.0) {
                canvas->setScaleAt(canvas->scale() * zoom, canvas->view().imageToWidget(layer->itemBounds(0).center()));
            }
            const QVector<RegionLabel> labels = layer->labels(canvas->view());
            QFont font = canvas->font();
            const QVector<PlacedLabel> placed = placeRegionLabels(labels, QFontMetricsF(regionLabelFont(font)), QRectF(canvas->rect()), {});
            QVector<QRectF> boxes;
            bool rankOne = false;
            for (const PlacedLabel& p : placed) {
                boxes.append(p.box);
                if (layer->regions()[p.index].rank == 1) {
                    rankOne = true;
                    QVERIFY2(!p.box.intersects(labels[p.index].target), "rank 1's label covers the lesion");
                }
            }
            QVERIFY(rankOne);
            QVERIFY(!anyOverlap(boxes));
        }
        saveShot(window, QStringLiteral("usability-labels"));
        // Painted through the window (its backing store, as on a real screen), the layers' area is the
        // canvas itself, not the whole window: labels and legends placed there are in view.
        auto* probe = new AreaProbe;
        window.context().layers()->add(probe);
        window.repaint();
        QTRY_VERIFY(!probe->areas.isEmpty());
        for (const QRectF& area : probe->areas) QCOMPARE(area, QRectF(canvas->rect()));

        // A sweep legend of sixteen pivots in a short view: in columns, inside the view.
        BrightestSweepLayer sweep(QStringLiteral("sweep"));
        QVector<BrightestRegionLayer*> pivots;
        for (int i = 0; i < 16; ++i) {
            auto* pivot = new BrightestRegionLayer(QStringLiteral("p%1").arg(i), QColor::fromHsv(i * 22, 200, 250), &sweep);
            pivot->setRegions({{1, QRect(10 * i, 5, 20, 20), QStringLiteral("#1")}});
            sweep.addPivot(pivot, QStringLiteral("p%1  pivot 12345.6").arg(80 + i));
        }
        for (const QRectF viewport : {QRectF(0, 0, 560, 360), QRectF(0, 0, 480, 200), QRectF(0, 0, 1200, 800)}) {
            const QRectF legend = sweep.legendRect(viewport, ViewTransform(QSize(200, 100), false, 1.0, QPointF(0, 0)));
            QVERIFY2(viewport.contains(legend), qPrintable(QStringLiteral("%1,%2 %3x%4 in %5x%6").arg(legend.x()).arg(legend.y())
                                                              .arg(legend.width()).arg(legend.height()).arg(viewport.width()).arg(viewport.height())));
        }
        // Even where it cannot fit, its top-left corner (the first entries) stays in view: never clipped at the top.
        const QRectF tiny(0, 0, 300, 90);
        const QRectF squeezed = sweep.legendRect(tiny, ViewTransform(QSize(200, 100), false, 1.0, QPointF(0, 0)));
        QVERIFY(tiny.contains(squeezed.topLeft()));
    }

    // (5) The CLI's overlay places its labels the same way: apart, the first one always, off small regions.
    void cliOverlayLabels() {
        std::vector<std::uint8_t> grey(400 * 300, 40);
        const Image image = Image::fromSamples<std::uint8_t>(400, 300, std::move(grey));
        OverlayImage overlay(image, defaultDisplaySettings(image));
        overlay.drawRectangle(0, 0, 400, 60, 0xFFFF00); // rank 1 touches the top edge, full width
        overlay.drawRectangleLabel(0, 0, 400, 60, "#1  123456", 0xFFFF00);
        for (int i = 0; i < 24; ++i) {
            const int x = 100 + (i % 8) * 14, y = 150 + (i / 8) * 12;
            overlay.drawRectangle(x, y, 6, 6, 0x00FFFF);
            overlay.drawRectangleLabel(x, y, 6, 6, QStringLiteral("#%1  %2").arg(i + 2).arg(9000 - i).toStdString(), 0x00FFFF);
        }
        overlay.drawLegend({{"legend", 0xFFFFFF}});
        const std::vector<OverlayImage::PlacedLabel> placed = overlay.placeLabels();
        QVERIFY(!placed.empty());
        QCOMPARE(placed.front().index, std::size_t(0));
        QVector<QRectF> boxes;
        for (const auto& p : placed) {
            boxes.append(QRectF(p.box.x, p.box.y, p.box.width, p.box.height));
            QVERIFY(p.box.x >= 0 && p.box.y >= 0 && p.box.x + p.box.width <= 400 && p.box.y + p.box.height <= 300);
        }
        QVERIFY(!anyOverlap(boxes));
        QVERIFY(placed.size() >= 12);
        QCOMPARE(overlay.pixels().cols, 400);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiUsabilityCanvas)
#include "test_gui_usability_canvas.moc"
