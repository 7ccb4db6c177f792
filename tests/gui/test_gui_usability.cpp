// The window as users meet it (issue 17), driven through the real window on the offscreen platform at
// 1280 × 800: drawing tools stay armed until Esc or another tool; region labels never overlap, keep off
// the regions and stay in view (the sweep legend too), in the window and in the CLI's overlay; the
// parameters fit without scrolling, the results show ten rows and the header all its cards with a search
// field; the histogram's log/asinh axes, its zoom to the limits and bins of whole levels (no comb); help
// inside the program, messages as sentences, Open Session's start folder, the status bar after an
// autosave is restored, and result columns wide enough for their numbers.
#include "tests/gui/GuiTestSupport.h"
#include "tests/gui/test_gui_brightest_support.h"
#include "tests/support/TestSupport.h"

#include "core/display/Histogram.h"
#include "core/export/OverlayImage.h"
#include "ui/canvas/CanvasTool.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/HistogramWidget.h"
#include "ui/docks/DisplayDock.h"
#include "ui/docks/HeaderDock.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/help/HelpDialog.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TracePanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/session/Autosave.h"
#include "ui/session/Session.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontMetricsF>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>

#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

namespace {

void showAt(MainWindow& window, QSize size) {
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
}

// Shows the window at 1280 × 800 and opens the bundled sample `name` in it; false when the window was not
// exposed or the image not drawn in time.
bool showWithSample(MainWindow& window, const QString& name) {
    if (!test::showExposed(window, QSize(1280, 800))) return false;
    window.openFile(test::samplePath(name));
    return QTest::qWaitFor([&] { return test::imageShown(window.context()); }, 30000);
}

// As showWithSample, then the brightest panel in the parameters dock, whole (groups fold to fit): its
// groups, the search first, in `groups`; false when that did not happen in time or it has fewer than three.
bool showBrightestPanel(MainWindow& window, const QString& name, QVector<QGroupBox*>& groups) {
    if (!showWithSample(window, name)) return false;
    ParametersDock* parameters = window.parametersDock();
    const QString panel = findModule(window)->name();
    parameters->showPanel(panel);
    if (!QTest::qWaitFor([&] { return parameters->currentPanelFits(); })) return false;
    groups = parameters->groups(panel);
    return groups.size() >= 3;
}

QMenu* topMenu(MainWindow& window, const QString& title) {
    for (QAction* a : window.menuBar()->actions())
        if (a->text().remove(QLatin1Char('&')) == title) return a->menu();
    return nullptr;
}

QAction* menuEntry(QMenu* menu, const QString& text) {
    if (!menu) return nullptr;
    for (QAction* a : menu->actions())
        if (a->text().remove(QLatin1Char('&')).startsWith(text)) return a;
    return nullptr;
}

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

// The line trace's panel in the dock: its main group open and the others folded when first shown, as wide
// as the dock at most (no horizontal scrolling), and whole with any one group unfolded.
void checkTracePanel(ParametersDock* parameters, TraceModule* module) {
    auto* panel = parameters->findChild<TracePanel*>();
    QVERIFY(panel);
    auto* scroll = qobject_cast<QScrollArea*>(panel->parentWidget()->parentWidget());
    QVERIFY(scroll);
    const QVector<QGroupBox*> groups = parameters->groups(module->name());
    QCOMPARE(groups.size(), 3);
    QCOMPARE(groups.first(), panel->mainGroup());
    QVERIFY(!parameters->isFolded(panel->mainGroup()));
    for (QGroupBox* box : panel->foldedByDefault()) QTRY_VERIFY2(parameters->isFolded(box), qPrintable(box->title()));
    const auto wholeAndNarrow = [&](const QString& what) {
        QTRY_VERIFY2(parameters->currentPanelFits(), qPrintable(what));
        QTRY_VERIFY2(!scroll->verticalScrollBar()->isVisible() || scroll->verticalScrollBar()->maximum() == 0, qPrintable(what));
        QVERIFY2(panel->minimumSizeHint().width() <= scroll->viewport()->width(),
                 qPrintable(QStringLiteral("%1: the panel needs %2 px, the dock gives %3")
                                .arg(what).arg(panel->minimumSizeHint().width()).arg(scroll->viewport()->width())));
        QTRY_VERIFY2(!scroll->horizontalScrollBar()->isVisible() || scroll->horizontalScrollBar()->maximum() == 0, qPrintable(what));
        QVERIFY2(panel->findChild<QPushButton*>(QStringLiteral("traceButton"))->isVisible(), qPrintable(what));
    };
    wholeAndNarrow(QStringLiteral("defaults"));
    // A click on a folded group's title unfolds it; the panel stays whole and as narrow.
    for (QGroupBox* box : panel->foldedByDefault()) {
        QTest::mouseClick(box, Qt::LeftButton, Qt::NoModifier, QPoint(30, box->fontMetrics().height() / 2 + 2));
        QVERIFY(!parameters->isFolded(box));
        wholeAndNarrow(box->title());
        for (QWidget* child : box->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (!child->isHidden()) QVERIFY2(child->isVisible(), qPrintable(child->objectName()));
        saveShot(*parameters, QStringLiteral("usability-panel-Line trace-") + box->title().mid(2));
    }
    for (QGroupBox* box : panel->foldedByDefault())
        if (!parameters->isFolded(box)) parameters->setFolded(box, true);
    // Choosing the ridge score unfolds the ridge line's group (width, polarity), and the panel stays whole.
    auto* score = panel->findChild<QComboBox*>(QStringLiteral("score"));
    QVERIFY(score);
    const int before = score->currentIndex();
    score->setCurrentIndex(score->findData(QStringLiteral("ridge")));
    QVERIFY(!parameters->isFolded(panel->foldedByDefault().first()));
    QVERIFY(panel->findChild<QComboBox*>(QStringLiteral("polarity"))->isVisible());
    wholeAndNarrow(QStringLiteral("ridge"));
    score->setCurrentIndex(before);
    parameters->setFolded(panel->foldedByDefault().first(), true);
}

} // namespace

class TestGuiUsability : public QObject {
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
    // there is room outside, stands away with a leader line when there is not, and rank 1 keeps its label
    // when its box touches the top edge of the view.
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
            labels.append({QRectF(x, y, 10, 8), QStringLiteral("#%1  %2").arg(i + 2).arg(50000 - i), Qt::yellow, 1.0, false, false});
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
        }
        QVERIFY(!anyOverlap(boxes));
        QVERIFY2(anyLeader, "crowded labels should stand away with leader lines");
        QVERIFY2(placed.size() >= 20, qPrintable(QString::number(placed.size()))); // most of the crowd finds room

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

    // (7) At 1280 × 800: the brightest panel whole without scrolling (groups fold to fit and a click on a
    // title unfolds one), ten result rows, and the header's cards in one list with a search field.
    void layoutFitsAt1280x800() {
        MainWindow window({false, false});
        QVector<QGroupBox*> groups;
        QVERIFY(showBrightestPanel(window, QStringLiteral("ngc1316o.fit"), groups));
        ParametersDock* parameters = window.parametersDock();
        BrightestModule* module = findModule(window);
        QVERIFY(!parameters->isFolded(groups.first())); // the search itself is always open
        // Unfolding a folded group (a click on its title) keeps the panel whole: others fold instead.
        QGroupBox* last = groups.last();
        if (!parameters->isFolded(last)) parameters->setFolded(last, true);
        QTest::mouseClick(last, Qt::LeftButton, Qt::NoModifier, QPoint(30, last->fontMetrics().height() / 2 + 2));
        QVERIFY(!parameters->isFolded(last));
        QTRY_VERIFY(parameters->currentPanelFits());
        QVERIFY(module->panel()->excludeRectangleButton()->isVisible());
        auto* scroll = qobject_cast<QScrollArea*>(module->panel()->parentWidget()->parentWidget());
        QVERIFY(scroll);
        QVERIFY(!scroll->verticalScrollBar()->isVisible() || scroll->verticalScrollBar()->maximum() == 0);

        // Every module's panel fits whole as well.
        for (AnalysisModule* m : window.modules()) {
            parameters->showPanel(m->name());
            if (parameters->currentTitle() != m->name()) continue; // a module without a panel
            QTRY_VERIFY2(parameters->currentPanelFits(), qPrintable(m->name()));
            saveShot(*parameters, QStringLiteral("usability-panel-") + m->name());
            for (QScrollArea* pageScroll : parameters->findChildren<QScrollArea*>())
                if (pageScroll->isVisible())
                    QTRY_VERIFY2(!pageScroll->verticalScrollBar()->isVisible() || pageScroll->verticalScrollBar()->maximum() == 0,
                                 qPrintable(m->name()));
            if (auto* trace = qobject_cast<TraceModule*>(m)) {
                checkTracePanel(parameters, trace);
                if (QTest::currentTestFailed()) return;
            }
        }
        parameters->showPanel(module->name());

        // Results: at least ten rows in view, counted under the column header a result brings.
        QTableView* results = window.resultsDock()->table();
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->panel()->runButton()->click(); }, &message), qPrintable(message));
        QVERIFY(results->model() && results->model()->rowCount() >= 10);
        QTRY_VERIFY(results->horizontalHeader()->isVisible() && results->horizontalHeader()->height() > 0);
        const auto rowsInView = [&] { return results->viewport()->height() / results->verticalHeader()->defaultSectionSize(); };
        QTRY_VERIFY(rowsInView() >= 10);
        QCOMPARE(window.resultsDock()->rowsInView(), rowsInView());
        const int rows = rowsInView();
        QVERIFY2(rows >= 10, qPrintable(QStringLiteral("%1 rows: dock %2, viewport %3, row %4, wanted %5, canvas %6").arg(rows).arg(window.resultsDock()->height()).arg(results->viewport()->height()).arg(results->verticalHeader()->defaultSectionSize()).arg(window.resultsDock()->heightForRows(10)).arg(window.canvas()->height())));
        // The canvas keeps a useful size.
        QVERIFY2(window.canvas()->width() >= 800 && window.canvas()->height() >= 380,
                 qPrintable(QStringLiteral("%1 x %2").arg(window.canvas()->width()).arg(window.canvas()->height())));

        // Header: every card in one list (many rows in view), a search field that narrows it.
        HeaderDock* header = window.headerDock();
        header->show();
        header->raise();
        QTRY_VERIFY(header->table()->isVisible());
        const int cards = header->visibleRowCount();
        QVERIFY(cards >= 20);
        const int inView = header->table()->viewport()->height() / header->table()->verticalHeader()->defaultSectionSize();
        QVERIFY2(inView >= 15, qPrintable(QString::number(inView)));
        QVERIFY(header->countLabel()->text().contains(QString::number(cards)));
        QTest::keyClicks(header->filter(), QStringLiteral("NAXIS"));
        QVERIFY(header->visibleRowCount() >= 3 && header->visibleRowCount() < cards);
        QVERIFY2(header->countLabel()->text().contains(QStringLiteral(" of ")), qPrintable(header->countLabel()->text()));
        saveShot(window, QStringLiteral("usability-layout"));

        // A window manager that fits the window to a 1280 × 800 screen (a title bar, a panel) takes some
        // of that height after the window is shown: the results still show ten rows.
        header->filter()->clear();
        window.resize(1280, 760);
        QTRY_VERIFY2(rowsInView() >= 10, qPrintable(QStringLiteral("%1 rows, canvas %2").arg(rowsInView()).arg(window.canvas()->height())));
        QVERIFY(window.canvas()->height() >= 380);
        // An empty table counts the header it will show: a new image's ten rows are still ten with a result.
        QVERIFY(window.resultsDock()->rowsInView() >= 10);
    }

    // A folded group is its title row and nothing else: no empty frame or bar below the title, the
    // groups after it moved up to just below that row; unfolded again, its contents are back.
    void foldedGroupsShowOnlyTheirTitle() {
        MainWindow window({false, false});
        QVector<QGroupBox*> groups;
        QVERIFY(showBrightestPanel(window, QStringLiteral("aero.png"), groups));
        ParametersDock* parameters = window.parametersDock();
        for (QGroupBox* box : groups.mid(1)) parameters->setFolded(box, true);
        QCoreApplication::processEvents();
        QWidget* panel = findModule(window)->panel();
        const QImage picture = panel->grab().toImage();
        saveShot(window, QStringLiteral("usability-folded-groups"));
        saveShot(*parameters, QStringLiteral("usability-folded-groups-panel"));
        const QColor background = panel->palette().color(QPalette::Window);
        for (QGroupBox* box : groups.mid(1)) {
            QVERIFY(parameters->isFolded(box));
            const QFontMetrics metrics(box->font());
            // One title row tall (the arrow and the title), not a title plus an empty frame.
            QVERIFY2(box->height() <= metrics.height() + 10,
                     qPrintable(QStringLiteral("%1: %2 px for a %3 px title").arg(box->title()).arg(box->height()).arg(metrics.height())));
            // Everything under the title text's row is the panel's background: no bar, no frame line.
            const QRect geometry(box->mapTo(panel, QPoint(0, 0)), box->size()); // in the panel's picture
            const int below = geometry.top() + metrics.height() + 2;
            int stray = 0;
            for (int y = below; y <= geometry.bottom(); ++y)
                for (int x = geometry.left() + 2; x < geometry.right() - 2; ++x)
                    stray += QColor(picture.pixel(x * picture.width() / panel->width(), y * picture.height() / panel->height())) != background;
            QVERIFY2(stray == 0, qPrintable(QStringLiteral("%1: %2 pixels of frame under the title").arg(box->title()).arg(stray)));
        }
        // Folded groups stack one title row after another.
        const auto top = [panel](QGroupBox* box) { return box->mapTo(panel, QPoint(0, 0)).y(); };
        for (int i = 2; i < groups.size(); ++i) {
            const int gap = top(groups[i]) - (top(groups[i - 1]) + groups[i - 1]->height() - 1);
            QVERIFY2(gap <= 12, qPrintable(QStringLiteral("%1 px between %2 and %3").arg(gap).arg(groups[i - 1]->title(), groups[i]->title())));
        }
        // Unfolded, a group shows its contents again.
        parameters->setFolded(groups.last(), false);
        QCoreApplication::processEvents();
        QVERIFY(!parameters->isFolded(groups.last()));
        QVERIFY(groups.last()->height() > QFontMetrics(groups.last()->font()).height() + 20);
    }

    // (9) The histogram: on a FITS frame the limits' handles stand well inside the plot with the zoom, or
    // with a log or asinh axis; integer data give bins of whole levels, so no comb.
    void histogramAxesAndZoom() {
        MainWindow window({false, false});
        QVERIFY(showWithSample(window, QStringLiteral("ngc1316o.fit")));
        DisplayDock* dock = window.displayDock();
        HistogramWidget* histogram = dock->histogram();
        const auto handleShare = [&](double value) {
            const QRectF r = histogram->plotRect();
            return (histogram->valueToX(value) - r.left()) / r.width();
        };
        const auto waitHistogram = [&] { QTRY_VERIFY(!dock->histogramPending()); };
        // Zoomed to the limits (the default): both handles well inside.
        QVERIFY(dock->zoomedToLimits());
        waitHistogram();
        glint::DisplayLimits l = window.context().displayLimits();
        QVERIFY2(handleShare(l.low) > 0.05 && handleShare(l.high) < 0.95 && handleShare(l.high) - handleShare(l.low) > 0.4,
                 qPrintable(QStringLiteral("%1 %2").arg(handleShare(l.low)).arg(handleShare(l.high))));
        QVERIFY(histogram->histogram().below > 0 || histogram->histogram().above > 0); // data beyond: arrows
        // A sky frame (background 1000 ± 15 and bright stars): over the whole range, linear, the handles
        // crowd the left (the issue); log and asinh spread them.
        {
            std::mt19937 rng(11);
            std::normal_distribution<double> sky(1000.0, 15.0);
            std::uniform_real_distribution<double> where(0.0, 512.0);
            std::vector<float> frame(512 * 512);
            for (float& v : frame) v = static_cast<float>(sky(rng));
            for (int s = 0; s < 30; ++s) {
                const double cx = where(rng), cy = where(rng);
                for (int y = std::max(0, static_cast<int>(cy) - 8); y < std::min(512, static_cast<int>(cy) + 9); ++y)
                    for (int x = std::max(0, static_cast<int>(cx) - 8); x < std::min(512, static_cast<int>(cx) + 9); ++x)
                        frame[static_cast<std::size_t>(y) * 512 + x] +=
                            static_cast<float>(50000.0 * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / 8.0));
            }
            Image image = Image::fromSamples<float>(512, 512, std::move(frame));
            image.meta.displayYUp = true;
            image.meta.format = "FITS";
            window.context().setImage(std::move(image), QStringLiteral("sky.fits"));
        }
        GLINT_WAIT_FOR_IMAGE(window);
        l = window.context().displayLimits();
        dock->zoomToLimitsBox()->setChecked(false);
        waitHistogram();
        const double linearLow = handleShare(l.low);
        for (auto axis : {glint::HistogramAxis::Log, glint::HistogramAxis::Asinh}) {
            dock->histogramAxisBox()->setCurrentIndex(dock->histogramAxisBox()->findData(static_cast<int>(axis)));
            waitHistogram();
            QCOMPARE(histogram->histogram().axis, axis);
            // The faint end widened: the low handle (on the sky) moves right, both stay inside the plot.
            QVERIFY2(handleShare(l.low) > 2.0 * linearLow && (axis != glint::HistogramAxis::Log || handleShare(l.low) > 0.01) && handleShare(l.high) < 0.99 &&
                         handleShare(l.high) - handleShare(l.low) > 0.2,
                     qPrintable(QStringLiteral("%1: %2 … %3 (linear low %4)").arg(glint::histogramAxisName(axis)).arg(handleShare(l.low))
                                    .arg(handleShare(l.high)).arg(linearLow)));
            // Positions and values map back and forth.
            const double v = l.low + 0.3 * (l.high - l.low);
            QVERIFY(std::abs(histogram->xToValue(histogram->valueToX(v)) - v) <= 1e-6 * std::max(1.0, std::abs(v)));
        }
        // Dragging the high handle on the asinh axis sets that value.
        {
            const QRectF r = histogram->plotRect();
            const QPoint grip(static_cast<int>(std::round(histogram->valueToX(l.high))), static_cast<int>(r.center().y()));
            const QPoint to(static_cast<int>(r.left() + 0.8 * r.width()), grip.y());
            QTest::mousePress(histogram, Qt::LeftButton, Qt::NoModifier, grip);
            QTest::mouseMove(histogram, to);
            QTest::mouseRelease(histogram, Qt::LeftButton, Qt::NoModifier, to);
            QVERIFY(std::abs(window.context().displayLimits().high - histogram->xToValue(to.x())) <= 1e-6 * std::max(1.0, std::abs(histogram->xToValue(to.x()))));
        }
        saveShot(window, QStringLiteral("usability-histogram"));

        // No comb: 12-bit values stored ×16 (every 16th level) and 8-bit data; bins of whole levels.
        std::mt19937 rng(4);
        std::normal_distribution<double> bulk(2000.0, 600.0);
        std::vector<std::uint16_t> shifted(200 * 200);
        for (auto& v : shifted) v = static_cast<std::uint16_t>(16 * std::clamp(static_cast<int>(bulk(rng)), 0, 4095));
        Image twelve = Image::fromSamples<std::uint16_t>(200, 200, std::move(shifted));
        const std::optional<LevelGrid> grid = integerLevelGrid(twelve);
        QVERIFY(grid && grid->step == 16.0);
        for (auto axis : {glint::HistogramAxis::Linear, glint::HistogramAxis::Asinh}) {
            const Histogram h = computeAxisHistogram(twelve, 0.0, 65535.0, 512, axis, grid);
            // Every edge halfway between two levels, every bin at least one level wide.
            for (std::size_t i = 0; i < h.counts.size(); ++i) {
                const double lo = h.binLow(i), hi = h.binHigh(i);
                QVERIFY(std::abs(std::fmod(lo - grid->origin + 8.0, 16.0)) < 1e-6);
                QVERIFY(hi - lo >= 16.0 - 1e-9);
            }
            // Around the bulk (where every level is used) the densities run smoothly: no comb.
            double worst = 1.0;
            for (std::size_t i = 1; i + 1 < h.counts.size(); ++i) {
                const double centre = (h.binLow(i) + h.binHigh(i)) / 2.0;
                if (std::abs(centre - 32000.0) > 8000.0 || h.counts[i] < 200) continue;
                const double a = h.axisDensity(i), b = h.axisDensity(i + 1);
                if (a > 0 && b > 0) worst = std::max(worst, std::max(a, b) / std::min(a, b));
            }
            QVERIFY2(worst < 1.6, qPrintable(QStringLiteral("%1: neighbouring bins differ %2×").arg(glint::histogramAxisName(axis)).arg(worst)));
        }
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        dock->histogramAxisBox()->setCurrentIndex(0);
        waitHistogram();
        const Histogram& h8 = histogram->histogram();
        QVERIFY(h8.levelStep >= 1.0);
        for (std::size_t i = 0; i < h8.counts.size(); ++i) QVERIFY(h8.binHigh(i) - h8.binLow(i) >= h8.levelStep - 1e-9);
    }

    // (10) Help: the user guide, the shortcut list and the examples; messages as sentences; Open Session
    // starts at home, not in the samples; the status bar names the image an autosave brought back; result
    // columns fit their numbers.
    void helpWordingAndColumns() {
        MainWindow window({false, false});
        showAt(window, QSize(1280, 800));
        QMenu* help = topMenu(window, QStringLiteral("Help"));
        QVERIFY(help);
        QAction* guideAction = menuEntry(help, QStringLiteral("User Guide"));
        QVERIFY(guideAction && guideAction->shortcut() == QKeySequence(QKeySequence::HelpContents));
        QVERIFY(menuEntry(help, QStringLiteral("Keyboard Shortcuts")));
        QAction* examples = menuEntry(help, QStringLiteral("Open Example"));
        QVERIFY(examples && examples->menu() && examples->menu()->actions().size() >= 3);

        guideAction->trigger();
        auto* guide = window.findChild<HelpDialog*>();
        QVERIFY(guide && guide->isVisible());
        const QString text = guide->browser()->toPlainText();
        for (const char* topic : {"Brightest region", "Pivot", "Common component", "Line trace", "Region statistics",
                                  "Zoom to Limits", "stay armed", "Esc", "sum", "Shortcuts"})
            QVERIFY2(text.contains(QLatin1String(topic)), topic);
        QVERIFY(guide->find(QStringLiteral("K-MSP")));
        guide->close();

        const QVector<ShortcutEntry> shortcuts = shortcutEntries(&window);
        const auto has = [&](const QString& keys, const QString& what) {
            return std::any_of(shortcuts.begin(), shortcuts.end(),
                               [&](const ShortcutEntry& e) { return e.keys == keys && e.action.contains(what); });
        };
        QVERIFY(has(QKeySequence(Qt::CTRL | Qt::Key_B).toString(QKeySequence::NativeText), QStringLiteral("Brightest Region")));
        QVERIFY(has(QKeySequence(QKeySequence::HelpContents).toString(QKeySequence::NativeText), QStringLiteral("User Guide")));
        QVERIFY(has(QStringLiteral("Esc"), QStringLiteral("drawing tool")));
        menuEntry(help, QStringLiteral("Keyboard Shortcuts"))->trigger();
        auto* list = window.findChild<ShortcutsDialog*>();
        QVERIFY(list && list->table()->rowCount() == shortcuts.size());
        list->close();

        // An example opens with its tool brought forward.
        QAction* aero = nullptr;
        for (QAction* a : examples->menu()->actions())
            if (a->toolTip().endsWith(QLatin1String("aero.png"))) aero = a;
        QVERIFY(aero);
        aero->trigger();
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(window.context().imagePath().endsWith(QLatin1String("aero.png")));
        QCOMPARE(window.parametersDock()->currentTitle(), QStringLiteral("Line trace"));
        // Open Session starts at home (or the last session folder), never in the samples folder.
        QCOMPARE(window.sessionDirectory(), QDir::homePath());

        // Messages are sentences.
        QCOMPARE(asSentence(QStringLiteral("cannot open 'x': no such file")), QStringLiteral("Cannot open 'x': no such file"));
        window.openFile(QDir(test::tempDir()).filePath(QStringLiteral("no-such-image.png")));
        QTRY_VERIFY(!window.statusBar()->currentMessage().isEmpty() && !window.context().isLoading());
        const QString shown = window.statusBar()->currentMessage();
        QVERIFY2(!shown.isEmpty() && shown.at(0).isUpper(), qPrintable(shown));

        // Result columns as wide as their numbers.
        window.openFile(test::samplePath(QStringLiteral("synthetic-mammogram.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        BrightestModule* module = findModule(window);
        module->panel()->kBox()->setValue(6);
        module->panel()->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { module->panel()->runButton()->click(); }, &message), qPrintable(message));
        QTableView* table = window.resultsDock()->table();
        QTRY_VERIFY(table->model()->rowCount() == 6);
        QTest::qWait(50); // the columns fit once the rows are in (a zero timer)
        for (int c = 0; c < table->model()->columnCount(); ++c) {
            for (int r = 0; r < table->model()->rowCount(); ++r) {
                const QString cell = table->model()->index(r, c).data().toString();
                QVERIFY2(table->columnWidth(c) >= table->fontMetrics().horizontalAdvance(cell) + 4,
                         qPrintable(QStringLiteral("column %1 is %2 px for '%3'").arg(c).arg(table->columnWidth(c)).arg(cell)));
            }
        }
    }

    // (10) After a crash the status bar names the restored image, not the autosave's internal file.
    void autosaveRestoreMessage() {
        const QString dir = QDir(test::tempDir()).filePath(QStringLiteral("usability-autosave"));
        QDir(dir).removeRecursively();
        {
            auto* window = new MainWindow({false, false, dir, 3600000});
            showAt(*window, QSize(1280, 800));
            window->openFile(test::samplePath(QStringLiteral("aero.png")));
            GLINT_WAIT_FOR_IMAGE(*window);
            QTRY_VERIFY_WITH_TIMEOUT(window->autosave()->saveNow() || QFileInfo::exists(window->autosave()->sessionPath()), 10000);
            delete window; // no close: as a crash leaves it
        }
        qputenv("GLINT_AUTOSAVE_ANSWER", "restore");
        MainWindow window({false, false, dir, 3600000});
        qunsetenv("GLINT_AUTOSAVE_ANSWER");
        QSignalSpy opened(window.sessions(), &SessionManager::opened);
        showAt(window, QSize(1280, 800));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30000);
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.contains(QStringLiteral("aero.png")), qPrintable(message));
        QVERIFY2(!message.contains(QStringLiteral(".json")) && !message.contains(QStringLiteral("autosave")), qPrintable(message));
        window.close();
    }
};

GLINT_GUI_TEST_MAIN(TestGuiUsability)
#include "test_gui_usability.moc"
