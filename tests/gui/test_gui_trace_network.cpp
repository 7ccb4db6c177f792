// Issue 32's editable network in the window, driven as a user drives it on the offscreen platform: a new trace's
// click within a few screen pixels of an earlier trace's vertex joins it exactly there; a node dragged with the
// mouse moves and the legs beside it are traced again through the dropped point (exactly the core's legs); Delete
// on a node joins its two legs into one traced again, or shortens the trace at an end; each edit is one step of
// Edit ▸ Undo, and undo/redo restore the exact earlier polyline. Per-leg confidence and nodes are on the layer.
// Bad input: clicks outside the image, two identical clicks, a node dragged off the image, a session whose trace
// geometry is broken: a message (or an error), and the earlier traces stay as they were. File ▸ Export Traces
// writes the network (pixel frame here: the scene is not georeferenced).
#include "tests/gui/test_gui_trace_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/trace/LineTrace.h"
#include "core/io/Codecs.h"
#include "core/util/Errors.h"
#include "scenes/TraceScenes.h"
#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/TraceLayer.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceTool.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>

#include <cmath>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::tracetool;

namespace {

TraceLeg directTrace(const Image& image, const TraceSettings& s, TracePoint a, TracePoint b) {
    auto tracer = BackendRegistry<LineTracer>::create(Backend::Cpu);
    JobControl job;
    tracer->setField(TraceField::compute(image, s.field), job);
    return tracer->trace(a, b, s.params, job);
}

bool samePoints(const std::vector<TracePoint>& a, const std::vector<TracePoint>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](TracePoint p, TracePoint q) { return p.x == q.x && p.y == q.y; });
}

const TraceModule::FinishedTrace* traceById(TraceModule* m, int id) {
    for (const auto& t : m->traces())
        if (t.id == id) return &t;
    return nullptr;
}

// Clicks the image points in order on the canvas and finishes with Enter; the new trace's id.
int traceThrough(TraceModule* m, ImageCanvas* canvas, const std::vector<QPointF>& points) {
    QSignalSpy finished(m, &TraceModule::traceFinished);
    for (const QPointF& p : points) QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, p));
    QTest::keyClick(canvas, Qt::Key_Return);
    if (!finished.wait(30000) && finished.isEmpty()) {
        qWarning("no trace finished: %s (clicks %d, legs %d)", qPrintable(m->lastMessage()), m->clickCount(), m->fixedLegCount());
        return -1;
    }
    return finished.first().first().toInt();
}

} // namespace

class TestGuiTraceNetwork : public QObject {
    Q_OBJECT

private slots:
    void joinAtAnEarlierVertex() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 11);
        OPEN_TRACE_WINDOW(f, scene.image, roadSettings());
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        const int first = traceThrough(m, canvas, {QPointF(scene.from.x, scene.from.y), QPointF(scene.to.x, scene.to.y)});
        QCOMPARE(first, 1);
        WAIT_IDLE(m);
        const std::vector<TracePoint> line = m->traces().front().result.polyline();
        QVERIFY(line.size() >= 4);
        const TracePoint vertex = line[line.size() / 2]; // a path vertex, not a click
        // A click 3 screen pixels off the vertex joins the trace there, exactly; the next click is free.
        const QPoint near = widgetAt(canvas, QPointF(vertex.x, vertex.y)) + QPoint(2, 2);
        QVERIFY(QLineF(canvas->view().imageToWidget(QPointF(vertex.x, vertex.y)), QPointF(near)).length() < TraceModule::kNodeRadiusPx);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, near);
        QVERIFY(m->isTracing());
        const QPointF off(vertex.x, std::min(vertex.y + 60.0, scene.image.height() - 5.0));
        const int second = traceThrough(m, canvas, {off});
        QCOMPARE(second, 2);
        const auto nodes = TraceModule::nodesOf(traceById(m, 2)->result);
        QCOMPARE(nodes.front().x, vertex.x);
        QCOMPARE(nodes.front().y, vertex.y);
        // Far from any vertex (more than the radius on screen), a click is where it lands.
        QVERIFY(!m->junctionAt(QPointF(5.0, 5.0)));
    }

    void dragANodeUndoRedo() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 12);
        const TraceSettings settings = roadSettings();
        OPEN_TRACE_WINDOW(f, scene.image, settings);
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        const QPointF via = centreAt(scene, 0.5 * scene.image.width());
        const int id = traceThrough(m, canvas, {QPointF(scene.from.x, scene.from.y), via, QPointF(scene.to.x, scene.to.y)});
        QCOMPARE(id, 1);
        WAIT_IDLE(m);
        const std::vector<TracePoint> before = m->traces().front().result.polyline();
        const auto nodes = TraceModule::nodesOf(m->traces().front().result);
        QCOMPARE(nodes.size(), std::size_t(3));
        // The layer shows the nodes and a confidence per leg.
        QCOMPARE(m->layer()->nodes(0).size(), 3);
        QCOMPARE(m->layer()->legMarks(0).size(), 2);
        QCOMPARE(m->layer()->legMarks(0)[1].confidence, m->traces().front().result.legs[1].confidence);

        // Drag the via node 25 screen pixels down with the mouse.
        const QPoint grab = widgetAt(canvas, QPointF(nodes[1].x, nodes[1].y));
        QVERIFY(m->nodeAt(canvas->view().widgetToImage(QPointF(grab))));
        const QPoint drop = grab + QPoint(0, 25);
        QSignalSpy edited(m, &TraceModule::traceEdited);
        QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, grab);
        QTest::mouseMove(canvas, grab + QPoint(0, 10));
        QTest::mouseMove(canvas, drop);
        QVERIFY(!m->tool()->preview().pending.isEmpty()); // the legs to be are drawn while the node is held
        QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, drop);
        QVERIFY(edited.wait(30000) || !edited.isEmpty());
        WAIT_IDLE(m);
        QVERIFY(!m->isTracing()); // a drag is no click
        QCOMPARE(m->traces().size(), std::size_t(1));
        const QPointF dropped = imageAt(canvas, drop);
        const glint::TraceResult& after = m->traces().front().result;
        const auto moved = TraceModule::nodesOf(after);
        QCOMPARE(moved[1].x, dropped.x());
        QCOMPARE(moved[1].y, dropped.y());
        // The legs beside it are the core's legs through the dropped point, with the trace's settings.
        QVERIFY(samePoints(after.legs[0].points, directTrace(scene.image, settings, nodes[0], moved[1]).points));
        QVERIFY(samePoints(after.legs[1].points, directTrace(scene.image, settings, moved[1], nodes[2]).points));
        const std::vector<TracePoint> afterLine = after.polyline();
        QVERIFY(!samePoints(afterLine, before));

        QUndoStack* undo = f.window.context().undoStack();
        QCOMPARE(undo->undoText(), QStringLiteral("Move node 2 of trace #1"));
        undo->undo();
        QVERIFY(samePoints(m->traces().front().result.polyline(), before));
        QCOMPARE(m->layer()->itemCount(), 1);
        undo->redo();
        QVERIFY(samePoints(m->traces().front().result.polyline(), afterLine));
        // The replayable request names the nodes now.
        const glint::Json request = m->traces().front().request;
        QCOMPARE(request["via"][0][1].get<double>(), dropped.y());
    }

    void deleteNodesUndoRedo() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 13);
        const TraceSettings settings = roadSettings();
        OPEN_TRACE_WINDOW(f, scene.image, settings);
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        const QPointF v1 = centreAt(scene, 0.35 * scene.image.width()), v2 = centreAt(scene, 0.65 * scene.image.width());
        QCOMPARE(traceThrough(m, canvas, {QPointF(scene.from.x, scene.from.y), v1, v2, QPointF(scene.to.x, scene.to.y)}), 1);
        WAIT_IDLE(m);
        const std::vector<TracePoint> original = m->traces().front().result.polyline();
        const std::vector<TraceLeg> originalLegs = m->traces().front().result.legs;
        const auto nodes = TraceModule::nodesOf(m->traces().front().result);
        QCOMPARE(nodes.size(), std::size_t(4));
        QUndoStack* undo = f.window.context().undoStack();

        // Delete on the via node under the mouse: its two legs become one, traced again from node 1 to node 3.
        QSignalSpy edited(m, &TraceModule::traceEdited);
        QTest::mouseMove(canvas, widgetAt(canvas, QPointF(nodes[1].x, nodes[1].y)));
        QTest::keyClick(canvas, Qt::Key_Delete);
        QVERIFY(edited.wait(30000) || !edited.isEmpty());
        WAIT_IDLE(m);
        const glint::TraceResult& joined = m->traces().front().result;
        QCOMPARE(joined.legs.size(), std::size_t(2));
        QVERIFY(samePoints(joined.legs[0].points, directTrace(scene.image, settings, nodes[0], nodes[2]).points));
        QVERIFY(samePoints(joined.legs[1].points, originalLegs[2].points)); // the leg beyond is untouched
        const std::vector<TracePoint> afterJoin = joined.polyline();
        QCOMPARE(undo->undoText(), QStringLiteral("Delete node 2 of trace #1"));

        // Delete the end node: the last leg goes, nothing traced again.
        QVERIFY(m->deleteNode(1, 2));
        QCOMPARE(m->traces().front().result.legs.size(), std::size_t(1));
        const std::vector<TracePoint> shortened = m->traces().front().result.polyline();
        QCOMPARE(shortened.back().x, nodes[2].x);
        // Two nodes left: deleting one is refused with a message, the trace stays.
        QVERIFY(!m->deleteNode(1, 0));
        QVERIFY(m->lastMessage().contains(QStringLiteral("two nodes")));
        QVERIFY(samePoints(m->traces().front().result.polyline(), shortened));

        undo->undo(); // the end comes back
        QVERIFY(samePoints(m->traces().front().result.polyline(), afterJoin));
        undo->undo(); // the via node comes back
        QVERIFY(samePoints(m->traces().front().result.polyline(), original));
        undo->redo();
        QVERIFY(samePoints(m->traces().front().result.polyline(), afterJoin));
        undo->redo();
        QVERIFY(samePoints(m->traces().front().result.polyline(), shortened));
    }

    // Bad input keeps every earlier trace: a click outside the image, the same point twice, a node dropped off
    // the image or on its neighbour, a session whose trace geometry is broken.
    void badInputKeepsTheTraces() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 14);
        OPEN_TRACE_WINDOW(f, scene.image, roadSettings());
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        QCOMPARE(traceThrough(m, canvas, {QPointF(scene.from.x, scene.from.y), QPointF(scene.to.x, scene.to.y)}), 1);
        WAIT_IDLE(m);
        const std::vector<TracePoint> line = m->traces().front().result.polyline();
        const auto nodes = TraceModule::nodesOf(m->traces().front().result);
        const int undoCount = f.window.context().undoStack()->count();

        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, QPointF(-3.0, scene.image.height() / 2.0)));
        QVERIFY(!m->isTracing());
        QVERIFY(m->lastMessage().contains(QStringLiteral("inside the image")));
        const QPointF free(scene.image.width() / 2.0, 8.0);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, free));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, free));
        QVERIFY(m->lastMessage().contains(QStringLiteral("equals the previous click")));
        QTest::keyClick(canvas, Qt::Key_Escape);
        WAIT_IDLE(m);

        QVERIFY(!m->moveNode(1, 1, QPointF(scene.image.width() + 10.0, 5.0)));
        QVERIFY(m->lastMessage().contains(QStringLiteral("inside the image")));
        QVERIFY(!m->moveNode(1, 1, QPointF(nodes[0].x, nodes[0].y)));
        QVERIFY(m->lastMessage().contains(QStringLiteral("neighbour")));
        QVERIFY(!m->moveNode(7, 0, QPointF(10, 10))); // no such trace

        // A session whose trace geometry is broken: an error naming it; nothing changes.
        const QJsonObject saved = m->saveSession();
        const SessionImages images{{QString(), f.window.context().image()}};
        const auto broken = [&](const std::function<void(QJsonObject&)>& edit) {
            QJsonObject state = saved;
            QJsonArray traces = state[QStringLiteral("traces")].toArray();
            QJsonObject t = traces[0].toObject();
            QJsonObject result = t[QStringLiteral("result")].toObject();
            edit(result);
            t[QStringLiteral("result")] = result;
            traces[0] = t;
            state[QStringLiteral("traces")] = traces;
            return state;
        };
        const auto editPoint = [](QJsonObject& result, double x, double y) {
            QJsonArray legs = result[QStringLiteral("legs")].toArray();
            QJsonObject leg = legs[0].toObject();
            QJsonArray points = leg[QStringLiteral("points")].toArray();
            points[1] = QJsonArray{x, y};
            leg[QStringLiteral("points")] = points;
            legs[0] = leg;
            result[QStringLiteral("legs")] = legs;
        };
        QVERIFY_THROWS_EXCEPTION(glint::InputError, m->prepareSession(broken([&](QJsonObject& r) { editPoint(r, 1e9, 3.0); }), images));
        QVERIFY_THROWS_EXCEPTION(glint::InputError, m->prepareSession(broken([&](QJsonObject& r) {
            QJsonArray legs = r[QStringLiteral("legs")].toArray();
            QJsonObject leg = legs[0].toObject();
            QJsonArray points = leg[QStringLiteral("points")].toArray();
            points.removeLast(); // the path no longer ends at the leg's end
            leg[QStringLiteral("points")] = points;
            legs[0] = leg;
            r[QStringLiteral("legs")] = legs;
        }), images));
        try {
            m->prepareSession(broken([&](QJsonObject& r) { editPoint(r, 1e9, 3.0); }), images);
        } catch (const glint::InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(QStringLiteral("not on the image")), e.what());
        }
        // The good session still reads.
        QVERIFY(m->prepareSession(saved, images) != nullptr);

        QCOMPARE(m->traces().size(), std::size_t(1));
        QVERIFY(samePoints(m->traces().front().result.polyline(), line));
        QCOMPARE(f.window.context().undoStack()->count(), undoCount);
    }

    void exportTheNetwork() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 15);
        OPEN_TRACE_WINDOW(f, scene.image, roadSettings());
        TraceModule* m = f.module;
        QTemporaryDir dir;
        QVERIFY_THROWS_EXCEPTION(glint::UsageError, m->exportNetwork(dir.filePath(QStringLiteral("none.gpkg"))));
        QCOMPARE(traceThrough(m, f.canvas, {QPointF(scene.from.x, scene.from.y), QPointF(scene.to.x, scene.to.y)}), 1);
        WAIT_IDLE(m);
        QVERIFY(f.window.findChildren<QAction*>().contains(m->exportNetworkAction()));
        // The road's width along the path (5 px), as glint-cli trace's width_px measures it.
        const std::optional<double> width = m->traces().front().widthPx;
        QVERIFY(width);
        QVERIFY2(std::abs(*width - 5.0) <= 0.5, qPrintable(QString::number(*width)));
        if (!glint::codecs()) QSKIP("this build has no GDAL: no network files");
        m->exportNetwork(dir.filePath(QStringLiteral("roads.geojson")));
        QFile geojson(dir.filePath(QStringLiteral("roads.geojson")));
        QVERIFY(geojson.open(QIODevice::ReadOnly));
        const QJsonObject props = QJsonDocument::fromJson(geojson.readAll())
                                      .object()["features"].toArray().at(0).toObject()["properties"].toObject();
        QCOMPARE(props["width_px"].toDouble(), *width);
        m->exportNetwork(dir.filePath(QStringLiteral("roads.gpkg")));
        QFile gpkg(dir.filePath(QStringLiteral("roads.gpkg")));
        QVERIFY(gpkg.open(QIODevice::ReadOnly));
        QCOMPARE(gpkg.read(16), QByteArray("SQLite format 3\0", 16));
        m->exportNetwork(dir.filePath(QStringLiteral("roads.shp")));
        for (const char* ext : {"shp", "shx", "dbf"}) QVERIFY(QFile::exists(dir.filePath(QStringLiteral("roads.") + ext)));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("roads.prj")))); // pixel frame: no CRS
        QVERIFY_THROWS_EXCEPTION(glint::UsageError, m->exportNetwork(dir.filePath(QStringLiteral("roads.kml"))));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiTraceNetwork)
#include "test_gui_trace_network.moc"
