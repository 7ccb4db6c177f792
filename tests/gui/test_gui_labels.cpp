// Region labels that stay readable at any count (issue 34): at K = 100 on a real frame (NGC 1316) the labels drawn
// never overlap, ranks 1..10 are always labelled, lower ranks only where there is room (more of them when zoomed
// in) and without leader lines; 10 000 regions keep the same rules; the Layers dock's Show box hides the labels
// but not the boxes, and the other way round, for the regions and for the source ellipses.
#include "tests/gui/test_gui_brightest_support.h"

#include "ui/docks/LayerDock.h"
#include "ui/modules/SourcesLayers.h"
#include "ui/overlay/LayerStack.h"
#include "ui/session/Session.h"

#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>

#include <random>
#include <set>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::brightest;

namespace {

// The ranks that got a label (no region selected: labels(view)[i] is region i).
std::set<int> labelledRanks(const BrightestRegionLayer& layer, const QVector<PlacedLabel>& placed) {
    std::set<int> ranks;
    for (const PlacedLabel& p : placed) ranks.insert(layer.regions().at(p.index).rank);
    return ranks;
}

QString overlapping(const QVector<PlacedLabel>& placed) {
    for (int i = 0; i < placed.size(); ++i)
        for (int j = i + 1; j < placed.size(); ++j)
            if (placed[i].box.intersects(placed[j].box))
                return QStringLiteral("labels %1 and %2 overlap").arg(placed[i].index).arg(placed[j].index);
    return {};
}

int regionsInView(const BrightestRegionLayer& layer, const ViewTransform& view, const QRectF& viewport) {
    int n = 0;
    for (int i = 0; i < layer.itemCount(); ++i) n += view.imageToWidget(layer.itemBounds(i)).intersects(viewport) ? 1 : 0;
    return n;
}

QImage paintLayer(const OverlayLayer& layer, const ViewTransform& view, QSize size, const QFont& font) {
    QImage picture(size, QImage::Format_RGB32);
    picture.fill(Qt::black);
    QPainter painter(&picture);
    painter.setFont(font);
    layer.paint(painter, view);
    return picture;
}

// Pixels not black within `area` of the picture.
int litPixels(const QImage& picture, const QRect& area) {
    int n = 0;
    const QRect r = area.intersected(picture.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) n += (picture.pixel(x, y) & 0xffffff) != 0 ? 1 : 0;
    return n;
}

} // namespace

class TestGuiLabels : public QObject {
    Q_OBJECT

private slots:
    void hundredRegionsOnNgc1316() {
        const QString file = test::samplePath(QStringLiteral("ngc1316o.fit"));
        if (!QFile::exists(file)) QSKIP("the NGC 1316 sample is missing");
        hundredRegions(file, QStringLiteral("labels-k100-ngc1316"));
    }

    void hundredRegionsOn47Tuc() { // an HST frame of 47 Tuc (fetched test data)
        const QString file = QDir(qEnvironmentVariable("GLINT_BUILD_DIR")).filePath(QStringLiteral("testdata/j8bt06nyq_flt.fits"));
        if (!QFile::exists(file)) QSKIP("build/testdata/j8bt06nyq_flt.fits is missing (the fetch_real_data fixture)");
        hundredRegions(file, QStringLiteral("labels-k100-47tuc"));
    }

private:
    // K = 100 on a real frame: the checks of both frames above. With GLINT_SCREENSHOT_DIR set it keeps the window's
    // grab and a session (NAME.glint.json) that reopens the frame with its 100 regions (glint NAME.glint.json).
    void hundredRegions(const QString& file, const QString& shotName) {
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, file));
        BrightestModule* module = findModule(window);
        BrightestPanel* panel = module->panel();
        QVERIFY(waitForAutoExclusion(module)); // the preset of the frame's kind, as a user gets it; K = 100
        panel->kBox()->setValue(100);
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QString message;
        QVERIFY2(runAndWait(module, [&] { panel->runButton()->click(); }, &message), qPrintable(message));
        BrightestRegionLayer* layer = module->regionLayer();
        QVERIFY(layer);
        QCOMPARE(layer->itemCount(), 100);
        layer->setSelected(-1);
        ImageCanvas* canvas = window.canvas();
        canvas->fitToWindow();
        QTest::qWait(50);
        const QRectF viewport(canvas->rect());

        // Fitted: no overlap, ranks 1..10 labelled, the rest thinned; leader lines for the top ranks only.
        const ViewTransform fit = canvas->view();
        const QVector<PlacedLabel> atFit = layer->placedLabels(fit, viewport, canvas->font());
        QVERIFY2(overlapping(atFit).isEmpty(), qPrintable(overlapping(atFit)));
        const std::set<int> ranksAtFit = labelledRanks(*layer, atFit);
        for (int rank = 1; rank <= kAlwaysLabelledRanks; ++rank) QVERIFY2(ranksAtFit.count(rank), qPrintable(QString::number(rank)));
        const int inViewAtFit = regionsInView(*layer, fit, viewport);
        qInfo("fitted (scale %.3f): %d of %d regions in view labelled", fit.scale(), static_cast<int>(atFit.size()), inViewAtFit);
        QVERIFY2(atFit.size() < inViewAtFit, "at K = 100 on a fitted frame some labels should be left out");
        for (const PlacedLabel& p : atFit)
            if (layer->regions().at(p.index).rank > kAlwaysLabelledRanks) QVERIFY(p.leader.isNull());

        // Zoomed in 3x on the brightest region: a larger share of the regions in view is labelled, and some rank
        // left out when fitted has its label now; still no overlap, ranks 1..10 in view still labelled.
        canvas->setScaleAt(canvas->scale() * 3.0, fit.imageToWidget(layer->itemBounds(0).center()));
        canvas->centerOn(layer->itemBounds(0).center());
        QTest::qWait(20);
        const ViewTransform zoomed = canvas->view();
        const QVector<PlacedLabel> atZoom = layer->placedLabels(zoomed, viewport, canvas->font());
        QVERIFY2(overlapping(atZoom).isEmpty(), qPrintable(overlapping(atZoom)));
        const int inViewZoomed = regionsInView(*layer, zoomed, viewport);
        qInfo("zoomed (scale %.3f): %d of %d regions in view labelled", zoomed.scale(), static_cast<int>(atZoom.size()), inViewZoomed);
        QVERIFY(inViewZoomed > 0);
        QVERIFY2(static_cast<double>(atZoom.size()) / inViewZoomed > static_cast<double>(atFit.size()) / inViewAtFit,
                 "zooming in should label a larger share of the regions in view");
        const std::set<int> ranksZoomed = labelledRanks(*layer, atZoom);
        bool gained = false;
        for (int rank : ranksZoomed) gained = gained || (rank > kAlwaysLabelledRanks && !ranksAtFit.count(rank));
        QVERIFY2(gained, "a rank without a label when fitted should get one zoomed in");
        for (int i = 0; i < layer->itemCount(); ++i) {
            const int rank = layer->regions().at(i).rank;
            if (rank <= kAlwaysLabelledRanks && zoomed.imageToWidget(layer->itemBounds(i)).intersects(viewport))
                QVERIFY2(ranksZoomed.count(rank), qPrintable(QString::number(rank)));
        }

        // The Layers dock's Show box: labels only hides the boxes, boxes only the labels.
        canvas->fitToWindow();
        QTest::qWait(20);
        LayerDock* dock = window.layerDock();
        QComboBox* show = dock->labelModeBox();
        QListWidget* list = dock->list();
        for (int row = 0; row < list->count(); ++row)
            if (list->item(row)->text() == layer->name()) list->setCurrentRow(row);
        QVERIFY(show->isEnabled());
        QCOMPARE(show->currentIndex(), 0);
        const QImage both = paintLayer(*layer, canvas->view(), canvas->size(), canvas->font());
        show->setCurrentIndex(1);
        emit show->activated(1);
        QCOMPARE(layer->labelMode(), OverlayLayer::LabelMode::BoxesOnly);
        QVERIFY(layer->placedLabels(canvas->view(), viewport, canvas->font()).isEmpty());
        const QImage boxes = paintLayer(*layer, canvas->view(), canvas->size(), canvas->font());
        show->setCurrentIndex(2);
        emit show->activated(2);
        QCOMPARE(layer->labelMode(), OverlayLayer::LabelMode::LabelsOnly);
        const QImage labels = paintLayer(*layer, canvas->view(), canvas->size(), canvas->font());
        QCOMPARE(layer->placedLabels(canvas->view(), viewport, canvas->font()).size(), atFit.size());
        // Rank 1's label: its text in "both" and "labels only", gone in "boxes only".
        const PlacedLabel first = *std::find_if(atFit.cbegin(), atFit.cend(), [&](const PlacedLabel& p) { return layer->regions().at(p.index).rank == 1; });
        const QRect labelBox = first.box.toAlignedRect().adjusted(2, 2, -2, -2);
        QVERIFY(litPixels(both, labelBox) > 20);
        QVERIFY(litPixels(labels, labelBox) > 20);
        QVERIFY2(litPixels(boxes, labelBox) < litPixels(both, labelBox) / 2, "boxes only should drop the labels' text");
        // The boxes: every region's outline is lit with boxes, none is without.
        int boxPixels = 0, labelOnlyPixels = 0;
        for (int i = 0; i < layer->itemCount(); ++i) {
            const QRect w = canvas->view().imageToWidget(layer->itemBounds(i)).toAlignedRect();
            const QRect corner(w.topLeft() - QPoint(1, 1), QSize(3, 3)); // outside every label box?
            bool underLabel = false;
            for (const PlacedLabel& p : atFit) underLabel = underLabel || p.box.toAlignedRect().adjusted(-3, -3, 3, 3).intersects(corner);
            if (underLabel) continue;
            boxPixels += litPixels(boxes, corner) > 0 ? 1 : 0;
            labelOnlyPixels += litPixels(labels, corner) > 0 ? 1 : 0;
        }
        qInfo("region corners lit: %d with boxes only, %d with labels only", boxPixels, labelOnlyPixels);
        QVERIFY(boxPixels > 20);
        QVERIFY2(labelOnlyPixels * 10 < boxPixels, "labels only should not draw the boxes");
        show->setCurrentIndex(0);
        emit show->activated(0);
        QCOMPARE(layer->labelMode(), OverlayLayer::LabelMode::BoxesAndLabels);
        saveShot(window, shotName);
        if (!qEnvironmentVariableIsEmpty("GLINT_SCREENSHOT_DIR"))
            window.sessions()->save(QDir(qEnvironmentVariable("GLINT_SCREENSHOT_DIR")).filePath(shotName + QStringLiteral(".glint.json")));
    }

private slots:

    // 10 000 regions (and 1000) on a 4096² image: the same rules, the labels bounded by the density limit.
    void tenThousandRegions() {
        for (const int count : {1000, 10000}) {
            std::mt19937 rng(static_cast<unsigned>(count));
            std::uniform_int_distribution<int> at(0, 4000), side(3, 60);
            QVector<RegionMark> marks;
            for (int rank = 1; rank <= count; ++rank)
                marks.append({rank, QRect(at(rng), at(rng), side(rng), side(rng)), QStringLiteral("#%1  %2").arg(rank).arg(9000000 - rank)});
            BrightestRegionLayer layer(QStringLiteral("many"), QColor(255, 176, 0));
            layer.setRegions(marks);
            const QRectF viewport(0, 0, 1100, 700);
            double previousShare = 0.0;
            for (const double scale : {0.17, 0.6, 2.0}) {
                const ViewTransform view(QSize(4096, 4096), false, scale, QPointF(0, 0));
                const QVector<PlacedLabel> placed = layer.placedLabels(view, viewport, QFont());
                QVERIFY2(overlapping(placed).isEmpty(), qPrintable(overlapping(placed)));
                const std::set<int> ranks = labelledRanks(layer, placed);
                for (int i = 0; i < count; ++i)
                    if (marks[i].rank <= kAlwaysLabelledRanks && view.imageToWidget(layer.itemBounds(i)).intersects(viewport))
                        QVERIFY2(ranks.count(marks[i].rank), qPrintable(QStringLiteral("rank %1 at %2").arg(marks[i].rank).arg(scale)));
                double minorArea = 0.0;
                for (const PlacedLabel& p : placed)
                    if (marks[p.index].rank > kAlwaysLabelledRanks) {
                        minorArea += p.box.width() * p.box.height();
                        QVERIFY(p.leader.isNull());
                    }
                // The last label may pass the limit by its own area.
                QVERIFY2(minorArea <= kLabelDensity * viewport.width() * viewport.height() + 2000.0, qPrintable(QString::number(minorArea)));
                const int inView = regionsInView(layer, view, viewport);
                const double share = static_cast<double>(placed.size()) / std::max(1, inView);
                qInfo("%d regions at scale %.2f: %d of %d in view labelled", count, scale, static_cast<int>(placed.size()), inView);
                QVERIFY2(share > previousShare, "zooming in should label a larger share");
                previousShare = share;
            }
        }
    }

    // The source ellipses: the Show box hides their labels or their ellipses.
    void sourceEllipses() {
        SourceEllipseLayer layer(QStringLiteral("sources"), QColor(0, 220, 255));
        QVector<OverlayShape> shapes;
        for (int i = 0; i < 3; ++i) {
            OverlayShape s;
            s.kind = OverlayShape::Kind::Polygon;
            for (int k = 0; k < 24; ++k)
                s.points << QPointF(60 + 120 * i + 20 * std::cos(k * M_PI / 12), 100 + 20 * std::sin(k * M_PI / 12));
            s.label = QStringLiteral("#%1").arg(i + 1);
            shapes.append(s);
        }
        layer.setShapes(shapes);
        layer.setLabelledCount(3);
        QVERIFY(layer.hasLabels());
        const ViewTransform view(QSize(400, 200), false, 1.0, QPointF(0, 0));
        const QImage both = paintLayer(layer, view, QSize(400, 200), QFont());
        layer.setLabelMode(OverlayLayer::LabelMode::BoxesOnly);
        const QImage ellipses = paintLayer(layer, view, QSize(400, 200), QFont());
        layer.setLabelMode(OverlayLayer::LabelMode::LabelsOnly);
        const QImage labels = paintLayer(layer, view, QSize(400, 200), QFont());
        const QRect aboveFirst(40, 55, 40, 22);  // where the first label goes (above its small ellipse)
        const QRect rightEdge(78, 95, 4, 10);    // the first ellipse's right edge
        QVERIFY(litPixels(both, aboveFirst) > 20 && litPixels(both, rightEdge) > 0);
        QCOMPARE(litPixels(ellipses, aboveFirst), 0);
        QVERIFY(litPixels(ellipses, rightEdge) > 0);
        QVERIFY(litPixels(labels, aboveFirst) > 20);
        QCOMPARE(litPixels(labels, rightEdge), 0);
    }
};

GLINT_GUI_TEST_MAIN(TestGuiLabels)
#include "test_gui_labels.moc"
