#include "ui/session/Session.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/ResultsDock.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/AnalysisModule.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/TimingLog.h"
#include "ui/session/SessionJson.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <utility>
#include <vector>

namespace glint::ui {

namespace {

const QString kFormat = QStringLiteral("glint-session");

QJsonObject inputJson(const QString& path, const glint::Image& image) {
    const glint::LoadOptions o = loadOptionsOf(image);
    return {{QStringLiteral("path"), QFileInfo(path).absoluteFilePath()},
            {QStringLiteral("hdu"), o.hdu},
            {QStringLiteral("plane"), o.plane},
            {QStringLiteral("frame"), o.frame},
            {QStringLiteral("width"), image.width()},
            {QStringLiteral("height"), image.height()}};
}

// Where an image of the session is: where it was, else beside the session file (a folder moved whole).
std::optional<QString> locate(const QString& path, const QString& directory) {
    if (QFileInfo(path).isFile()) return path;
    if (!directory.isEmpty()) {
        const QString beside = QDir(directory).filePath(QFileInfo(path).fileName());
        if (QFileInfo(beside).isFile()) return beside;
    }
    return std::nullopt;
}

struct LayerState {
    QString name;
    bool visible = true;
    QColor colour;
};

struct ViewState {
    bool fit = true;
    double scale = 1.0;
    QPointF centre;
};

// Everything read from a document before anything is applied.
struct Plan {
    QString label;
    QString mainPath;
    glint::LoadOptions mainOptions;
    QSize mainSize;
    QHash<QString, QHash<QString, SessionInput>> inputs; // module key -> input key -> file
    QJsonObject modules;
    glint::DisplaySettings display;
    ViewState view;
    std::vector<LayerState> layers;
    std::vector<RunRecord> timing;
    QString currentResults;
};

struct Loaded {
    std::optional<LoadedImage> main;
    QHash<QString, SessionImages> inputs; // module key -> loaded inputs
    QString error;
};

Plan readPlan(const QJsonObject& doc, const QList<AnalysisModule*>& modules) {
    using namespace sessionjson;
    if (doc.value(QStringLiteral("format")).toString() != kFormat)
        throw glint::InputError("not a Glint session file (no \"format\": \"glint-session\")");
    if (integer(doc[QStringLiteral("version")], QStringLiteral("version")) > SessionManager::kVersion)
        throw glint::InputError("the session was saved by a newer Glint (session version " +
                                std::to_string(doc[QStringLiteral("version")].toInt()) + ")");
    Plan plan;
    const QJsonObject image = object(doc[QStringLiteral("image")], QStringLiteral("image"));
    plan.mainPath = string(image[QStringLiteral("path")], QStringLiteral("image.path"));
    plan.mainOptions.hdu = integer(image[QStringLiteral("hdu")], QStringLiteral("image.hdu"));
    plan.mainOptions.plane = integer(image[QStringLiteral("plane")], QStringLiteral("image.plane"));
    plan.mainOptions.frame = integer(image[QStringLiteral("frame")], QStringLiteral("image.frame"));
    plan.mainSize = QSize(integer(image[QStringLiteral("width")], QStringLiteral("image.width")),
                          integer(image[QStringLiteral("height")], QStringLiteral("image.height")));
    plan.display = readDisplay(doc[QStringLiteral("display")]);
    const QJsonObject view = object(doc[QStringLiteral("view")], QStringLiteral("view"));
    plan.view.fit = boolean(view[QStringLiteral("fit")], QStringLiteral("view.fit"));
    plan.view.scale = number(view[QStringLiteral("scale")], QStringLiteral("view.scale"));
    const QPolygonF centre = readPoints(QJsonArray{view[QStringLiteral("centre")]}, QStringLiteral("view.centre"));
    plan.view.centre = centre.value(0);
    if (!(plan.view.scale > 0)) throw glint::InputError("session file: view.scale is not positive");
    // Absent: no module saved anything; anything but an object is a damaged file, not "no modules".
    if (const QJsonValue m = doc.value(QStringLiteral("modules")); !m.isUndefined())
        plan.modules = object(m, QStringLiteral("modules"));
    for (const AnalysisModule* module : modules) {
        const QString key = module->sessionKey();
        if (!key.isEmpty() && plan.modules.contains(key))
            plan.inputs[key] = module->sessionInputs(object(plan.modules[key], QStringLiteral("modules.") + key));
    }
    for (const QJsonValue& v : array(doc[QStringLiteral("layers")], QStringLiteral("layers"))) {
        const QJsonObject l = object(v, QStringLiteral("layers[]"));
        plan.layers.push_back({string(l[QStringLiteral("name")], QStringLiteral("layers[].name")),
                               boolean(l[QStringLiteral("visible")], QStringLiteral("layers[].visible")),
                               readColour(l[QStringLiteral("colour")], QStringLiteral("layers[].colour"))});
    }
    for (const QJsonValue& v : array(doc[QStringLiteral("timing")], QStringLiteral("timing")))
        plan.timing.push_back(readRunRecord(v));
    if (const QJsonValue shown = doc.value(QStringLiteral("results_shown")); !shown.isUndefined())
        plan.currentResults = string(shown, QStringLiteral("results_shown"));
    return plan;
}

// The layers as saved: visibility and colour by name (in order, for layers of the same name), then the
// saved order; layers the session does not name stay on top.
void applyLayers(LayerStack& stack, const std::vector<LayerState>& saved) {
    QList<OverlayLayer*> remaining = stack.layers();
    QList<OverlayLayer*> ordered;
    for (const LayerState& s : saved) {
        for (qsizetype i = 0; i < remaining.size(); ++i) {
            OverlayLayer* layer = remaining[i];
            if (layer->name() != s.name) continue;
            layer->setColour(s.colour);
            layer->setVisible(s.visible);
            ordered.append(layer);
            remaining.removeAt(i);
            break;
        }
    }
    ordered += remaining;
    for (int i = 0; i < ordered.size(); ++i)
        stack.move(ordered[i], i);
}

} // namespace

SessionManager::SessionManager(MainWindow& window, QObject* parent) : QObject(parent), window_(window) {}

bool SessionManager::hasContent() const {
    return window_.context().hasImage();
}

QString SessionManager::imagePath() const {
    return window_.context().imagePath();
}

QJsonObject SessionManager::capture() const {
    const AppContext& ctx = window_.context();
    if (!ctx.hasImage()) return {};
    QJsonObject doc{{QStringLiteral("format"), kFormat},
                    {QStringLiteral("version"), kVersion},
                    {QStringLiteral("glint"), QStringLiteral(GLINT_VERSION)}};
    doc[QStringLiteral("image")] = inputJson(ctx.imagePath(), *ctx.image());
    doc[QStringLiteral("display")] = sessionjson::display(ctx.displaySettings());
    const ImageCanvas* canvas = window_.canvas();
    const QPointF centre = canvas->view().widgetToImage(QRectF(canvas->rect()).center());
    doc[QStringLiteral("view")] = QJsonObject{{QStringLiteral("fit"), canvas->isFitMode()},
                                              {QStringLiteral("scale"), canvas->scale()},
                                              {QStringLiteral("centre"), QJsonArray{centre.x(), centre.y()}}};
    QJsonObject modules;
    for (const AnalysisModule* module : window_.modules())
        if (!module->sessionKey().isEmpty()) modules[module->sessionKey()] = module->saveSession();
    doc[QStringLiteral("modules")] = modules;
    QJsonArray layers;
    for (const OverlayLayer* layer : ctx.layers()->layers())
        layers.append(QJsonObject{{QStringLiteral("name"), layer->name()},
                                  {QStringLiteral("visible"), layer->isVisible()},
                                  {QStringLiteral("colour"), sessionjson::colour(layer->colour())}});
    doc[QStringLiteral("layers")] = layers;
    QJsonArray timing;
    for (const RunRecord& r : ctx.timingLog()->records())
        timing.append(sessionjson::runRecord(r));
    doc[QStringLiteral("timing")] = timing;
    if (const ResultsDock* results = window_.resultsDock())
        doc[QStringLiteral("results_shown")] = results->resultSetTitle(results->currentResultSet());
    return doc;
}

void SessionManager::save(const QString& path) const {
    QJsonObject doc = capture();
    if (doc.isEmpty()) throw glint::UsageError("nothing to save: open an image first");
    if (!QFileInfo(imagePath()).isFile())
        throw glint::UsageError("the image '" + imagePath().toStdString() +
                                "' was made in memory, not opened from a file: a session could not open it again");
    doc[QStringLiteral("saved")] = QDateTime::currentDateTime().toString(Qt::ISODate);
    glint::writeFileAtomically(path.toStdString(), QJsonDocument(doc).toJson(QJsonDocument::Indented).toStdString());
}

void SessionManager::open(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return fail(path, tr("cannot read '%1': %2").arg(path, file.errorString()));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (!doc.isObject())
        return fail(
            path, tr("'%1' is not a session file: %2")
                      .arg(path, error.error != QJsonParseError::NoError ? error.errorString() : tr("no JSON object")));
    open(doc.object(), QFileInfo(path).absolutePath(), path);
}

void SessionManager::open(const QJsonObject& document, const QString& directory, const QString& label) {
    loading_.drop(); // an open() still loading is superseded, even if this one fails
    Plan plan;
    try {
        plan = readPlan(document, window_.modules());
    } catch (const std::exception& e) {
        return fail(label, QString::fromStdString(e.what()));
    }
    plan.label = label;
    // Every file must be there before anything loads: one clear message naming what is missing.
    QStringList missing;
    const auto find = [&](QString& path) {
        const std::optional<QString> found = locate(path, directory);
        if (found)
            path = *found;
        else
            missing << path;
    };
    find(plan.mainPath);
    for (auto& files : plan.inputs)
        for (SessionInput& input : files)
            find(input.path);
    if (!missing.isEmpty())
        return fail(label, tr("the session's image file is missing: %1").arg(missing.join(QStringLiteral(", "))));

    loading_.start(
        this,
        [plan]() -> Loaded {
            Loaded out;
            try {
                out.main =
                    LoadedImage::prepare(glint::loadImage(plan.mainPath.toStdString(), plan.mainOptions), plan.mainPath);
                for (auto it = plan.inputs.cbegin(); it != plan.inputs.cend(); ++it)
                    for (auto input = it.value().cbegin(); input != it.value().cend(); ++input)
                        out.inputs[it.key()].insert(
                            input.key(), std::make_shared<const glint::Image>(
                                             glint::loadImage(input.value().path.toStdString(), input.value().options)));
            } catch (const std::bad_alloc&) {
                out.error = QObject::tr("not enough memory to open the session's images");
            } catch (const std::exception& e) {
                out.error = QString::fromStdString(e.what());
            }
            return out;
        },
        [this, plan](Loaded loaded) {
            if (!loaded.error.isEmpty()) return fail(plan.label, loaded.error);
            const LoadedImage& main = *loaded.main;
            if (main.image->width() != plan.mainSize.width() || main.image->height() != plan.mainSize.height())
                return fail(plan.label,
                            tr("'%1' is %2 × %3 pixels now, %4 × %5 when the session was saved: it is not the same image")
                                .arg(plan.mainPath)
                                .arg(main.image->width())
                                .arg(main.image->height())
                                .arg(plan.mainSize.width())
                                .arg(plan.mainSize.height()));
            std::vector<std::function<void()>> apply;
            try {
                for (AnalysisModule* module : window_.modules()) {
                    const QString key = module->sessionKey();
                    if (key.isEmpty() || !plan.modules.contains(key)) continue;
                    SessionImages images = loaded.inputs.value(key);
                    images.insert(QString(), main.image);
                    if (auto f = module->prepareSession(plan.modules[key].toObject(), images))
                        apply.push_back(std::move(f));
                }
            } catch (const std::exception& e) {
                return fail(plan.label, QString::fromStdString(e.what()));
            }
            AppContext& ctx = window_.context();
            ctx.jobs()->cancel(); // a running analysis is for the image that goes now
            ctx.showPrepared(std::move(*loaded.main));
            for (const auto& f : apply)
                f();
            ctx.setDisplaySettings(plan.display);
            applyLayers(*ctx.layers(), plan.layers);
            ImageCanvas* canvas = window_.canvas();
            if (plan.view.fit) {
                canvas->fitToWindow();
            } else {
                canvas->setScaleAt(plan.view.scale, QRectF(canvas->rect()).center());
                canvas->centerOn(plan.view.centre);
            }
            ctx.timingLog()->clear();
            for (const RunRecord& r : plan.timing)
                ctx.timingLog()->add(r);
            if (ResultsDock* results = window_.resultsDock())
                for (int i = 0; i < results->resultSetCount(); ++i)
                    if (results->resultSetTitle(i) == plan.currentResults) results->setCurrentResultSet(i);
            emit opened(plan.label);
        });
}

void SessionManager::fail(const QString& label, const QString& message) {
    loading_.drop();
    emit failed(label, message);
}

} // namespace glint::ui
