#include "ui/session/SessionJson.h"

#include "core/algo/brightest/BrightestAlgorithm.h"
#include "core/algo/commoncomponent/CommonAlgorithm.h"
#include "core/algo/trace/TraceAlgorithm.h"

#include "ui/results/TimingLog.h"
#include "core/util/Errors.h"

#include <QByteArray>
#include <QJsonDocument>

#include "core/io/Image.h"
#include "core/util/BoundedInflate.h"
#include "core/util/ImageBudget.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace glint::ui::sessionjson {

namespace {

[[noreturn]] void fail(const QString& what, const char* expected) {
    throw glint::InputError(
        QStringLiteral("session file: %1 is missing or is not %2").arg(what, QLatin1String(expected)).toStdString());
}

// `value`, when `isType` says it is of the type wanted; otherwise fails naming `what` and the type.
const QJsonValue& typed(const QJsonValue& value, bool isType, const QString& what, const char* type) {
    if (!isType) fail(what, type);
    return value;
}

// The descriptors' JSON (nlohmann) and Qt's: through text, which both read exactly (64-bit integers too).
QJsonObject toQt(const glint::Json& json) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
}

glint::Json fromQt(const QJsonObject& object) {
    return glint::Json::parse(QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString());
}

// A result's reader errors name the session file.
template <class F>
auto readCore(F&& read) {
    try {
        return read();
    } catch (const glint::InputError& e) {
        throw glint::InputError(std::string("session file: ") + e.what());
    }
}

glint::TracePoint readTracePoint(const QJsonValue& value, const QString& what) {
    const QJsonArray a = array(value, what);
    if (a.size() != 2) fail(what, "an [x, y] pair");
    return {number(a[0], what), number(a[1], what)};
}

} // namespace

QJsonObject object(const QJsonValue& value, const QString& what) {
    return typed(value, value.isObject(), what, "an object").toObject();
}

QJsonArray array(const QJsonValue& value, const QString& what) {
    return typed(value, value.isArray(), what, "an array").toArray();
}

double number(const QJsonValue& value, const QString& what) {
    return typed(value, value.isDouble(), what, "a number").toDouble();
}

int integer(const QJsonValue& value, const QString& what) {
    const double v = number(value, what);
    if (v != std::floor(v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        fail(what, "an integer");
    return static_cast<int>(v);
}

bool boolean(const QJsonValue& value, const QString& what) {
    return typed(value, value.isBool(), what, "true or false").toBool();
}

QString string(const QJsonValue& value, const QString& what) {
    return typed(value, value.isString(), what, "a string").toString();
}

QString field(const QString& what, const char* name) {
    return what + QLatin1Char('.') + QLatin1String(name);
}

QJsonValue exactInteger(std::int64_t value) {
    return QString::number(static_cast<qlonglong>(value));
}

std::int64_t readExactInteger(const QJsonValue& value, const QString& what) {
    bool ok = false;
    const qlonglong v = string(value, what).toLongLong(&ok);
    if (!ok) fail(what, "an integer in a string");
    return v;
}

QJsonArray rect(const QRect& r) {
    return {r.x(), r.y(), r.width(), r.height()};
}

QRect readRect(const QJsonValue& value, const QString& what) {
    const QJsonArray a = array(value, what);
    if (a.size() != 4) fail(what, "[x, y, width, height]");
    const QRect r(integer(a[0], what), integer(a[1], what), integer(a[2], what), integer(a[3], what));
    if (r.width() < 0 || r.height() < 0) fail(what, "a rectangle of positive size");
    return r;
}

QJsonArray points(const QPolygonF& polygon) {
    QJsonArray out;
    for (const QPointF& p : polygon)
        out.append(QJsonArray{p.x(), p.y()});
    return out;
}

QPolygonF readPoints(const QJsonValue& value, const QString& what) {
    QPolygonF out;
    for (const QJsonValue& v : array(value, what)) {
        const glint::TracePoint p = readTracePoint(v, what);
        out.append(QPointF(p.x, p.y));
    }
    return out;
}

QString colour(const QColor& c) {
    return c.name(QColor::HexArgb);
}

QColor readColour(const QJsonValue& value, const QString& what) {
    const QColor c = QColor::fromString(string(value, what));
    if (!c.isValid()) fail(what, "a colour (#aarrggbb)");
    return c;
}

glint::Backend readBackend(const QJsonValue& value, const QString& what) {
    return glint::parseBackend(string(value, what).toStdString());
}

// --- Display ---------------------------------------------------------------------------------------------

QJsonObject display(const glint::DisplaySettings& s) {
    return {{QStringLiteral("scale"), QLatin1String(glint::displayScaleName(s.scale))},
            {QStringLiteral("limits"), QLatin1String(glint::limitsModeName(s.limits))},
            {QStringLiteral("percentile"), s.percentile},
            {QStringLiteral("low"), s.low},
            {QStringLiteral("high"), s.high},
            {QStringLiteral("colormap"), QLatin1String(glint::colormapName(s.colormap))}};
}

glint::DisplaySettings readDisplay(const QJsonValue& value) {
    const QString what = QStringLiteral("display");
    const QJsonObject o = object(value, what);
    glint::DisplaySettings s;
    s.scale = glint::parseDisplayScale(string(o[QStringLiteral("scale")], field(what, "scale")).toStdString());
    s.limits = glint::parseLimitsMode(string(o[QStringLiteral("limits")], field(what, "limits")).toStdString());
    s.percentile = number(o[QStringLiteral("percentile")], field(what, "percentile"));
    s.low = number(o[QStringLiteral("low")], field(what, "low"));
    s.high = number(o[QStringLiteral("high")], field(what, "high"));
    s.colormap = glint::parseColormap(string(o[QStringLiteral("colormap")], field(what, "colormap")).toStdString());
    return s;
}

// --- Brightest ------------------------------------------------------------------------------------------

// Sessions store the descriptor's JSON form (core/algo/brightest/BrightestAlgorithm.h); version 1 files
// held their own form, read by readBrightestResultV1.
QJsonObject brightestResult(const glint::BrightestResult& r) {
    return toQt(glint::brightestResultJson(r));
}

namespace {

glint::BrightestResult readBrightestResultV1(const QJsonObject& o) {
    const QString what = QStringLiteral("brightest result");
    glint::BrightestResult r;
    r.pivotSpec =
        glint::PivotSpec::parse(string(o[QStringLiteral("pivot_spec")], field(what, "pivot_spec")).toStdString());
    r.pivot = number(o[QStringLiteral("pivot")], field(what, "pivot"));
    r.exactInteger = boolean(o[QStringLiteral("exact_integer")], field(what, "exact_integer"));
    r.mode = glint::parseBrightestMode(string(o[QStringLiteral("mode")], field(what, "mode")).toStdString());
    const QJsonArray size = array(o[QStringLiteral("image_size")], field(what, "image_size"));
    if (size.size() != 2) fail(field(what, "image_size"), "[width, height]");
    r.imageWidth = integer(size[0], field(what, "image_size"));
    r.imageHeight = integer(size[1], field(what, "image_size"));
    r.includedPixels = static_cast<std::size_t>(
        readExactInteger(o[QStringLiteral("included_pixels")], field(what, "included_pixels")));
    r.backend = readBackend(o[QStringLiteral("backend")], field(what, "backend"));
    r.device = string(o[QStringLiteral("device")], field(what, "device")).toStdString();
    const QRect image(0, 0, r.imageWidth, r.imageHeight);
    for (const QJsonValue& v : array(o[QStringLiteral("regions")], field(what, "regions"))) {
        const QString w = field(what, "regions[]");
        const QJsonObject g = object(v, w);
        glint::BrightestRegion region;
        region.rank = integer(g[QStringLiteral("rank")], field(w, "rank"));
        const QRect box = readRect(g[QStringLiteral("rect")], field(w, "rect"));
        if (box.isEmpty() || !image.contains(box)) fail(field(w, "rect"), "a rectangle inside the image");
        region.x = box.x();
        region.y = box.y();
        region.width = box.width();
        region.height = box.height();
        region.sum = number(g[QStringLiteral("sum")], field(w, "sum"));
        region.sumInt = readExactInteger(g[QStringLiteral("sum_int")], field(w, "sum_int"));
        region.exactInteger = boolean(g[QStringLiteral("exact_integer")], field(w, "exact_integer"));
        r.regions.push_back(region);
    }
    return r;
}

} // namespace

glint::BrightestResult readBrightestResult(const QJsonValue& value) {
    const QJsonObject o = object(value, QStringLiteral("brightest result"));
    if (o.contains(QStringLiteral("image_size"))) return readBrightestResultV1(o);
    return readCore([&] { return glint::brightestResultFromJson(fromQt(o)); });
}

// --- Trace ----------------------------------------------------------------------------------------------

// The descriptor's JSON form; version 1 files held the same legs and score.
QJsonObject traceResult(const glint::TraceResult& r) {
    return toQt(glint::traceResultJson(r));
}

glint::TraceResult readTraceResult(const QJsonValue& value) {
    const QJsonObject o = object(value, QStringLiteral("trace"));
    return readCore([&] { return glint::traceResultFromJson(fromQt(o)); });
}

// --- Common component -----------------------------------------------------------------------------------

// The descriptor's JSON form plus the mask (A's size, zlib-compressed in base64); version 1 files held
// their own form, read by readCommonResultV1.
QJsonObject commonResult(const glint::CommonComponentResult& r) {
    QJsonObject o = toQt(glint::commonResultJson(r));
    o[QStringLiteral("mask_size")] = QJsonArray{r.maskWidth, r.maskHeight};
    if (!r.mask.empty()) {
        const QByteArray raw(reinterpret_cast<const char*>(r.mask.data()), static_cast<qsizetype>(r.mask.size()));
        o[QStringLiteral("mask")] = QString::fromLatin1(qCompress(raw, 9).toBase64());
    }
    return o;
}

namespace {

// The mask and its size, checked against the component's box.
void readMask(const QJsonObject& o, const QString& what, glint::CommonComponentResult& r) {
    const QJsonArray size = array(o[QStringLiteral("mask_size")], field(what, "mask_size"));
    if (size.size() != 2) fail(field(what, "mask_size"), "[width, height]");
    r.maskWidth = integer(size[0], field(what, "mask_size"));
    r.maskHeight = integer(size[1], field(what, "mask_size"));
    if (!r.found) return;
    // The size is checked before anything is inflated: an image's size (as every loader checks it) and
    // within the memory budget; then the data is inflated into exactly that many bytes, never more (a
    // zlib bomb stops at the mask's size).
    try {
        glint::checkImageDimensions(r.maskWidth, r.maskHeight, "the mask");
        glint::DecodedSize size;
        size.width = r.maskWidth;
        size.height = r.maskHeight;
        glint::checkImageBudget(size, "the mask");
    } catch (const glint::InputError& e) {
        throw glint::InputError(std::string("session file: ") + field(what, "mask_size").toStdString() + ": " + e.what());
    }
    const std::size_t expected = static_cast<std::size_t>(r.maskWidth) * static_cast<std::size_t>(r.maskHeight);
    const QString maskText = string(o[QStringLiteral("mask")], field(what, "mask"));
    if (static_cast<std::size_t>(maskText.size()) > expected * 2 + 1024) // deflate never grows data that much
        fail(field(what, "mask"), "a mask of mask_size pixels");
    const QByteArray packed = QByteArray::fromBase64(maskText.toLatin1());
    auto raw = glint::inflateQtCompressed(reinterpret_cast<const std::uint8_t*>(packed.constData()),
                                                static_cast<std::size_t>(packed.size()), expected);
    if (!raw) fail(field(what, "mask"), "a mask of mask_size pixels");
    const QRect box(r.bboxX, r.bboxY, r.bboxWidth, r.bboxHeight);
    if (box.isEmpty() || !QRect(0, 0, r.maskWidth, r.maskHeight).contains(box))
        fail(field(what, "bbox"), "a box inside the mask");
    r.mask = std::move(*raw);
}

glint::CommonComponentResult readCommonResultV1(const QJsonObject& o) {
    const QString what = QStringLiteral("common component result");
    glint::CommonComponentResult r;
    r.found = boolean(o[QStringLiteral("found")], field(what, "found"));
    r.dx = integer(o[QStringLiteral("dx")], field(what, "dx"));
    r.dy = integer(o[QStringLiteral("dy")], field(what, "dy"));
    r.size = static_cast<std::uint64_t>(readExactInteger(o[QStringLiteral("size")], field(what, "size")));
    const QRect box = readRect(o[QStringLiteral("bbox")], field(what, "bbox"));
    r.bboxX = box.x();
    r.bboxY = box.y();
    r.bboxWidth = box.width();
    r.bboxHeight = box.height();
    r.stats.offsets = static_cast<std::uint64_t>(
        readExactInteger(o[QStringLiteral("offsets_searched")], field(what, "offsets_searched")));
    readMask(o, what, r);
    return r;
}

} // namespace

glint::CommonComponentResult readCommonResult(const QJsonValue& value) {
    const QString what = QStringLiteral("common component result");
    const QJsonObject o = object(value, what);
    if (!o.contains(QStringLiteral("offsets"))) return readCommonResultV1(o);
    glint::CommonComponentResult r = readCore([&] { return glint::commonResultFromJson(fromQt(o)); });
    readMask(o, what, r);
    return r;
}

// --- Timing records -------------------------------------------------------------------------------------

QJsonObject runRecord(const RunRecord& r) {
    QJsonArray steps;
    for (const glint::TimingStep& s : r.steps)
        steps.append(
            QJsonObject{{QStringLiteral("name"), QString::fromStdString(s.name)}, {QStringLiteral("ms"), s.ms}});
    return {{QStringLiteral("algorithm"), r.algorithm},
            {QStringLiteral("backend"), r.backend},
            {QStringLiteral("device"), r.device},
            {QStringLiteral("image"), r.imagePath},
            {QStringLiteral("image_size"), QJsonArray{r.imageSize.width(), r.imageSize.height()}},
            {QStringLiteral("parameters"), r.parameters},
            {QStringLiteral("steps"), steps},
            {QStringLiteral("total_ms"), r.totalMs},
            {QStringLiteral("when"), r.when.toString(Qt::ISODateWithMs)}};
}

RunRecord readRunRecord(const QJsonValue& value) {
    const QString what = QStringLiteral("timing record");
    const QJsonObject o = object(value, what);
    RunRecord r;
    r.algorithm = string(o[QStringLiteral("algorithm")], field(what, "algorithm"));
    r.backend = string(o[QStringLiteral("backend")], field(what, "backend"));
    r.device = string(o[QStringLiteral("device")], field(what, "device"));
    r.imagePath = string(o[QStringLiteral("image")], field(what, "image"));
    const QJsonArray size = array(o[QStringLiteral("image_size")], field(what, "image_size"));
    if (size.size() != 2) fail(field(what, "image_size"), "[width, height]");
    r.imageSize = QSize(integer(size[0], field(what, "image_size")), integer(size[1], field(what, "image_size")));
    r.parameters = string(o[QStringLiteral("parameters")], field(what, "parameters"));
    for (const QJsonValue& v : array(o[QStringLiteral("steps")], field(what, "steps"))) {
        const QJsonObject s = object(v, field(what, "steps[]"));
        r.steps.push_back({string(s[QStringLiteral("name")], field(what, "steps[].name")).toStdString(),
                           number(s[QStringLiteral("ms")], field(what, "steps[].ms"))});
    }
    r.totalMs = number(o[QStringLiteral("total_ms")], field(what, "total_ms"));
    r.when = QDateTime::fromString(string(o[QStringLiteral("when")], field(what, "when")), Qt::ISODateWithMs);
    return r;
}

QJsonObject fromJson(const glint::Json& object) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(object.dump())).object();
}

glint::Json toJson(const QJsonObject& object) {
    return glint::Json::parse(QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString());
}

} // namespace glint::ui::sessionjson
