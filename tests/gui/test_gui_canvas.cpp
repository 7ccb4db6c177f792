// The canvas: one view transform for every painter and tool (with and without the y-up flip), zoom that
// keeps the point under the cursor fixed (wheel, 1:1), fit, pans, the rectangle and polygon tools, layer
// painting, hit-testing and selection.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "ui/canvas/CanvasTool.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/canvas/ShapeTools.h"
#include "ui/overlay/LayerStack.h"
#include "ui/overlay/MaskLayer.h"
#include "ui/overlay/ShapeLayer.h"

#include <QSignalSpy>
#include <QWheelEvent>

using namespace glint;
using namespace glint::ui;

namespace {
// A canvas of a known size showing a w×h image (geometry only: tools and transforms need no pixels).
struct CanvasFixture {
    ImageCanvas canvas;
    LayerStack layers;
    CanvasFixture(QSize image, bool yUp, QSize widget = {800, 600}) {
        canvas.resize(widget);
        canvas.setLayers(&layers);
        canvas.show();
        if (!QTest::qWaitForWindowExposed(&canvas)) qWarning("canvas not exposed");
        canvas.setImageGeometry(image, yUp);
    }
    // Zooms to `scale` and centres the view on the image point `centre`.
    void zoomTo(double scale, QPointF centre) {
        canvas.setScaleAt(scale, QPointF(0, 0));
        canvas.centerOn(centre);
    }
};

void sendWheel(QWidget* w, QPointF at, int delta) {
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

bool near(QPointF a, QPointF b, double eps = 1e-6) { return std::abs(a.x() - b.x()) < eps && std::abs(a.y() - b.y()) < eps; }
} // namespace

class TestGuiCanvas : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { test::isolateSettings(); }

    void viewTransformRoundTrip_data() {
        test::columns<bool, double, QPointF>({"yUp", "scale", "origin"});
        QTest::newRow("1:1") << false << 1.0 << QPointF(0, 0);
        QTest::newRow("zoomed, offset") << false << 3.5 << QPointF(-120.25, 40.0);
        QTest::newRow("y up 1:1") << true << 1.0 << QPointF(10, 10);
        QTest::newRow("y up zoomed out") << true << 0.3 << QPointF(55.5, -7.0);
    }
    void viewTransformRoundTrip() {
        QFETCH(bool, yUp);
        QFETCH(double, scale);
        QFETCH(QPointF, origin);
        const ViewTransform v(QSize(300, 200), yUp, scale, origin);
        const QTransform t = v.transform();
        for (QPointF p : {QPointF(0, 0), QPointF(299, 199), QPointF(-0.5, -0.5), QPointF(17.25, 123.75)}) {
            QVERIFY(near(v.widgetToImage(v.imageToWidget(p)), p, 1e-9));
            QVERIFY(near(t.map(p), v.imageToWidget(p), 1e-9));
        }
        // Pixel (0, 0) covers [-0.5, 0.5]²: its outer corner is the display's top-left (or bottom-left for y up).
        const QPointF corner = v.imageToWidget(QPointF(-0.5, -0.5));
        QVERIFY(near(corner, yUp ? QPointF(origin.x(), origin.y() + 200 * scale) : origin, 1e-9));
        QCOMPARE(ViewTransform::pixelAt(QPointF(0.49, -0.5)), QPoint(0, 0));
        QCOMPARE(ViewTransform::pixelAt(QPointF(0.5, 1.49)), QPoint(1, 1));
        QCOMPARE(ViewTransform::pixelAt(QPointF(-0.51, 0)), QPoint(-1, 0));
        QCOMPARE(ViewTransform::pixelArea(QRect(2, 3, 4, 5)), QRectF(1.5, 2.5, 4, 5));
    }

    void fitCentresTheImage() {
        CanvasFixture f(QSize(400, 100), false);
        f.canvas.fitToWindow();
        QCOMPARE(f.canvas.scale(), 2.0); // 800/400 < 600/100
        const QRectF shown = f.canvas.view().imageRectInWidget();
        QCOMPARE(shown, QRectF(0, 200, 800, 200));
        QVERIFY(f.canvas.isFitMode());
        f.canvas.resize(400, 600); // fit mode follows the window
        QCOMPARE(f.canvas.scale(), 1.0);
    }

    void zoomKeepsPointUnderCursor_data() {
        test::columns<bool, QPointF, int>({"yUp", "cursor", "wheel"});
        QTest::newRow("in, centre") << false << QPointF(400, 300) << 120;
        QTest::newRow("in, corner") << false << QPointF(37.5, 511.25) << 360;
        QTest::newRow("out") << false << QPointF(600, 100) << -240;
        QTest::newRow("y up, in") << true << QPointF(123, 456) << 120;
        QTest::newRow("y up, out") << true << QPointF(700, 20) << -120;
    }
    void zoomKeepsPointUnderCursor() {
        QFETCH(bool, yUp);
        QFETCH(QPointF, cursor);
        QFETCH(int, wheel);
        CanvasFixture f(QSize(1000, 700), yUp);
        const QPointF before = f.canvas.view().widgetToImage(cursor);
        const double scaleBefore = f.canvas.scale();
        sendWheel(&f.canvas, cursor, wheel);
        QVERIFY(f.canvas.scale() != scaleBefore);
        QVERIFY(wheel > 0 ? f.canvas.scale() > scaleBefore : f.canvas.scale() < scaleBefore);
        QVERIFY(near(f.canvas.view().widgetToImage(cursor), before, 1e-9));
        QVERIFY(!f.canvas.isFitMode());
        // 1:1 around the same point.
        f.canvas.setScaleAt(1.0, cursor);
        QCOMPARE(f.canvas.scale(), 1.0);
        QVERIFY(near(f.canvas.view().widgetToImage(cursor), before, 1e-9));
        // Back to fit: the whole image visible again.
        f.canvas.fitToWindow();
        QVERIFY(QRectF(f.canvas.rect()).adjusted(-1e-9, -1e-9, 1e-9, 1e-9).contains(f.canvas.view().imageRectInWidget()));
    }

    void keyboardAndPanning() {
        CanvasFixture f(QSize(200, 200), false);
        f.canvas.setFocus();
        QTest::keyClick(&f.canvas, Qt::Key_1);
        QCOMPARE(f.canvas.scale(), 1.0);
        const QPointF origin = f.canvas.view().origin();
        QTest::keyClick(&f.canvas, Qt::Key_Left);
        QCOMPARE(f.canvas.view().origin(), origin + QPointF(64, 0));
        // Middle-button drag pans by the drag.
        QTest::mousePress(&f.canvas, Qt::MiddleButton, Qt::NoModifier, QPoint(300, 300));
        QMouseEvent move(QEvent::MouseMove, QPointF(330, 280), f.canvas.mapToGlobal(QPointF(330, 280)), Qt::NoButton,
                         Qt::MiddleButton, Qt::NoModifier);
        QApplication::sendEvent(&f.canvas, &move);
        QTest::mouseRelease(&f.canvas, Qt::MiddleButton, Qt::NoModifier, QPoint(330, 280));
        QCOMPARE(f.canvas.view().origin(), origin + QPointF(64 + 30, -20));
        QTest::keyClick(&f.canvas, Qt::Key_F);
        QVERIFY(f.canvas.isFitMode());
        // Zoom in/out by keys keep the scale within limits and change it.
        const double s = f.canvas.scale();
        QTest::keyClick(&f.canvas, Qt::Key_Plus);
        QVERIFY(f.canvas.scale() > s);
        for (int i = 0; i < 100; ++i) f.canvas.zoomOut();
        QVERIFY(f.canvas.scale() > 0.0);
        for (int i = 0; i < 100; ++i) f.canvas.zoomIn();
        QCOMPARE(f.canvas.scale(), 64.0);
    }

    // A resting cursor's readout follows the view: after a keyboard pan the canvas reports the pixel now under
    // the cursor (the readouts would otherwise keep the pixel it was over before); after it leaves, nothing.
    void restingCursorFollowsTheView() {
        CanvasFixture f(QSize(200, 200), false);
        f.canvas.setFocus();
        QTest::keyClick(&f.canvas, Qt::Key_1);
        QSignalSpy moved(&f.canvas, &ImageCanvas::cursorMoved);
        const QPointF at(150.0, 120.0);
        QMouseEvent move(QEvent::MouseMove, at, f.canvas.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(&f.canvas, &move);
        QCOMPARE(moved.size(), 1);
        const QPointF before = moved.last().at(0).toPointF();
        QVERIFY(near(before, f.canvas.view().widgetToImage(at)));
        QTest::keyClick(&f.canvas, Qt::Key_Left); // the image moves 64 px right under the cursor
        QCOMPARE(moved.size(), 2);
        const QPointF after = moved.last().at(0).toPointF();
        QVERIFY(near(after, f.canvas.view().widgetToImage(at)));
        QVERIFY(near(after, before - QPointF(64.0, 0.0)));
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(&f.canvas, &leave);
        QTest::keyClick(&f.canvas, Qt::Key_Left);
        QCOMPARE(moved.size(), 2);
    }

    void centreOnPoint() {
        CanvasFixture f(QSize(1000, 1000), true);
        f.canvas.setScaleAt(2.0, QPointF(0, 0));
        f.canvas.centerOn(QPointF(700, 100));
        QVERIFY(near(f.canvas.view().imageToWidget(QPointF(700, 100)), QPointF(400, 300), 1e-9));
    }

    void rectangleTool_data() {
        test::addBoolRows("yUp", "y down", "y up");
    }
    void rectangleTool() {
        QFETCH(bool, yUp);
        CanvasFixture f(QSize(100, 80), yUp);
        f.zoomTo(5.0, QPointF(50, 40));
        RectangleTool tool;
        QSignalSpy drawn(&tool, &RectangleTool::rectangleDrawn);
        f.canvas.setTool(&tool);
        QCOMPARE(f.canvas.tool(), &tool);
        const ViewTransform v = f.canvas.view();
        // Drag from inside pixel (10, 20) to inside pixel (14, 23), in whatever screen direction that is.
        const QPoint a = v.imageToWidget(QPointF(10.2, 20.3)).toPoint();
        const QPoint b = v.imageToWidget(QPointF(13.8, 22.9)).toPoint();
        QTest::mousePress(&f.canvas, Qt::LeftButton, Qt::NoModifier, a);
        QTest::mouseMove(&f.canvas, b);
        QTest::mouseRelease(&f.canvas, Qt::LeftButton, Qt::NoModifier, b);
        QCOMPARE(drawn.count(), 1);
        QCOMPARE(drawn.at(0).at(0).toRect(), QRect(10, 20, 5, 4));
        QCOMPARE(f.canvas.tool(), static_cast<CanvasTool*>(&tool)); // stays armed for the next rectangle
        QTest::keyClick(&f.canvas, Qt::Key_Escape);                   // until Esc
        QCOMPARE(f.canvas.tool(), static_cast<CanvasTool*>(f.canvas.defaultTool()));
        // Clipped to the image.
        QCOMPARE(RectangleTool::pixelsBetween(QPointF(-5, -5), QPointF(3.2, 200), QSize(100, 80)), QRect(0, 0, 4, 80));
        QVERIFY(RectangleTool::pixelsBetween(QPointF(-9, -9), QPointF(-3, -2), QSize(100, 80)).isEmpty());
    }

    void polygonTool() {
        CanvasFixture f(QSize(100, 100), true);
        f.zoomTo(4.0, QPointF(50, 50));
        PolygonTool tool;
        QSignalSpy drawn(&tool, &PolygonTool::polygonDrawn);
        f.canvas.setTool(&tool);
        const ViewTransform v = f.canvas.view();
        const QList<QPointF> corners{QPointF(40, 40), QPointF(60, 40), QPointF(60, 55), QPointF(45, 60)};
        for (const QPointF& c : corners) QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(c).toPoint());
        QTest::keyClick(&f.canvas, Qt::Key_Backspace); // drop the last corner
        QCOMPARE(tool.vertices().size(), 3);
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(corners[3]).toPoint());
        QTest::mouseDClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(corners[3]).toPoint());
        QCOMPARE(drawn.count(), 1);
        const QPolygonF polygon = drawn.at(0).at(0).value<QPolygonF>();
        QCOMPARE(polygon.size(), 4);
        for (int i = 0; i < 4; ++i) QVERIFY(near(polygon[i], corners[i], 0.5 / 4.0 + 1e-9)); // within a screen pixel
        // Too few corners: Enter does nothing; Esc gives up.
        f.canvas.setTool(&tool);
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(corners[0]).toPoint());
        QTest::keyClick(&f.canvas, Qt::Key_Return);
        QCOMPARE(drawn.count(), 1);
        QTest::keyClick(&f.canvas, Qt::Key_Escape);
        QCOMPARE(f.canvas.tool(), static_cast<CanvasTool*>(f.canvas.defaultTool()));
    }

    void clickToolReportsImagePoints() {
        CanvasFixture f(QSize(64, 64), true);
        ClickTool tool(QStringLiteral("Trace"));
        QSignalSpy clicked(&tool, &ClickTool::clicked);
        QSignalSpy hovered(&tool, &ClickTool::hovered);
        f.canvas.setTool(&tool);
        const QPoint at = f.canvas.view().imageToWidget(QPointF(10, 3)).toPoint();
        QTest::mouseMove(&f.canvas, at);
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(clicked.count(), 1);
        QVERIFY(hovered.count() >= 1);
        QCOMPARE(ViewTransform::pixelAt(clicked.at(0).at(0).toPointF()), QPoint(10, 3));
    }

    void hitTestingAndSelection() {
        ShapeLayer layer(QStringLiteral("regions"), Qt::red);
        const int big = layer.add(OverlayShape::pixelRectangle(QRect(0, 0, 50, 50), QStringLiteral("big")));
        const int small = layer.add(OverlayShape::pixelRectangle(QRect(10, 10, 5, 5)));
        const int line = layer.add(OverlayShape::polyline(QPolygonF{QPointF(60, 0), QPointF(60, 40)}));
        QCOMPARE(layer.hitTest(QPointF(30, 30), 0.5), big);   // inside the big one only
        QCOMPARE(layer.hitTest(QPointF(12, 12), 0.5), small); // nested: the smaller wins
        QCOMPARE(layer.hitTest(QPointF(60.3, 20), 0.5), line);
        QCOMPARE(layer.hitTest(QPointF(70, 70), 0.5), -1);
        QCOMPARE(layer.itemBounds(small), QRectF(9.5, 9.5, 5, 5));
        QCOMPARE(layer.shape(small).pixelRect(), QRect(10, 10, 5, 5));

        // A click with the default tool selects through the layer stack; the top layer wins.
        CanvasFixture f(QSize(100, 100), false);
        auto* bottom = new ShapeLayer(QStringLiteral("bottom"), Qt::green);
        auto* top = new ShapeLayer(QStringLiteral("top"), Qt::blue);
        bottom->add(OverlayShape::pixelRectangle(QRect(20, 20, 30, 30)));
        top->add(OverlayShape::pixelRectangle(QRect(30, 30, 30, 30)));
        f.layers.add(bottom);
        f.layers.add(top);
        const ViewTransform v = f.canvas.view();
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(40, 40)).toPoint());
        QCOMPARE(top->selected(), 0);
        QCOMPARE(bottom->selected(), -1);
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(22, 22)).toPoint());
        QCOMPARE(top->selected(), -1);
        QCOMPARE(bottom->selected(), 0);
        top->setVisible(false); // hidden layers are not hit
        QTest::mouseClick(&f.canvas, Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(55, 55)).toPoint());
        QCOMPARE(top->selected(), -1);
        QCOMPARE(bottom->selected(), -1);
        f.layers.remove(top);
        QCOMPARE(f.layers.layers().size(), 1);
    }

    void layersArePaintedThroughTheView_data() {
        test::addBoolRows("yUp", "y down", "y up");
    }
    void layersArePaintedThroughTheView() {
        QFETCH(bool, yUp);
        CanvasFixture f(QSize(100, 100), yUp, QSize(400, 400));
        f.zoomTo(4.0, QPointF(50, 50));
        auto* shapes = new ShapeLayer(QStringLiteral("shapes"), QColor(255, 0, 0));
        shapes->setShowLabels(false);
        shapes->add(OverlayShape::pixelRectangle(QRect(10, 5, 20, 10)));
        auto* mask = new MaskLayer(QStringLiteral("mask"), QColor(0, 0, 255));
        mask->setOpacity(1.0);
        std::vector<std::uint8_t> bits(4 * 3, 0);
        bits[1 * 4 + 2] = 1; // mask pixel (2, 1) → image pixel (62, 71)
        mask->setMask(4, 3, bits, QPoint(60, 70));
        f.layers.add(shapes);
        f.layers.add(mask);
        const QImage picture = f.canvas.grab().toImage();
        const ViewTransform v = f.canvas.view();
        // The rectangle's left edge runs along x = 9.5 (outer edge of pixel 10), rows 5..14.
        const QPoint onEdge = v.imageToWidget(QPointF(9.5, 10)).toPoint();
        QVERIFY(qRed(picture.pixel(onEdge)) > 200 && qBlue(picture.pixel(onEdge)) < 80);
        const QPoint inside = v.imageToWidget(QPointF(20, 10)).toPoint();
        QVERIFY(qRed(picture.pixel(inside)) < 120);
        // The mask tints exactly image pixel (62, 71).
        QCOMPARE(picture.pixel(v.imageToWidget(QPointF(62, 71)).toPoint()), qRgb(0, 0, 255));
        QVERIFY(picture.pixel(v.imageToWidget(QPointF(63, 71)).toPoint()) != qRgb(0, 0, 255));
        QVERIFY(picture.pixel(v.imageToWidget(QPointF(62, 72)).toPoint()) != qRgb(0, 0, 255));
        QVERIFY(mask->isSet(62, 71) && !mask->isSet(62, 72));
        // Hidden layers are not painted.
        mask->setVisible(false);
        QVERIFY(f.canvas.grab().toImage().pixel(v.imageToWidget(QPointF(62, 71)).toPoint()) != qRgb(0, 0, 255));
    }
};

QTEST_MAIN(TestGuiCanvas)
#include "test_gui_canvas.moc"
