// Session files are JSON: these turn what the window and the modules hold (display settings, rectangles,
// colours, core results, timing records) into JSON values and back, reading strictly (InputError naming
// the field) so that a damaged session is refused before anything is applied.
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/trace/LineTrace.h"
#include "core/display/Display.h"
#include "core/export/JsonOutput.h"
#include "core/jobs/Backend.h"

#include <QColor>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QPolygonF>
#include <QRect>
#include <QString>

#include <type_traits>
#include <vector>

namespace glint::ui {

struct RunRecord;

namespace sessionjson {

// Strict readers: the value must be there and of the type; `what` names it in the message.
QJsonObject object(const QJsonValue& value, const QString& what);
QJsonArray array(const QJsonValue& value, const QString& what);
double number(const QJsonValue& value, const QString& what);
int integer(const QJsonValue& value, const QString& what);
bool boolean(const QJsonValue& value, const QString& what);
QString string(const QJsonValue& value, const QString& what);

// The name of `what`'s member `name` in messages: what.name.
QString field(const QString& what, const char* name);

// Reads an array of objects: `read(element, elementName)` for each, in order, the element named what[].
template <class Read>
auto readObjects(const QJsonValue& value, const QString& what, Read&& read) {
    const QString element = what + QStringLiteral("[]");
    std::vector<std::decay_t<std::invoke_result_t<Read&, const QJsonObject&, const QString&>>> out;
    for (const QJsonValue& v : array(value, what))
        out.push_back(read(object(v, element), element));
    return out;
}

// Exact 64-bit integers travel as decimal strings (JSON numbers are doubles to most readers).
QJsonValue exactInteger(std::int64_t value);
std::int64_t readExactInteger(const QJsonValue& value, const QString& what);

QJsonArray rect(const QRect& r); // [x, y, width, height]
QRect readRect(const QJsonValue& value, const QString& what);
QJsonArray points(const QPolygonF& polygon); // [[x, y], ...]
QPolygonF readPoints(const QJsonValue& value, const QString& what);
QString colour(const QColor& c); // "#aarrggbb"
QColor readColour(const QJsonValue& value, const QString& what);

glint::Backend readBackend(const QJsonValue& value, const QString& what);

// Core's JSON (parameters) and Qt's, through their text (numbers read back to the same double).
QJsonObject fromJson(const glint::Json& object);
glint::Json toJson(const QJsonObject& object);

QJsonObject display(const glint::DisplaySettings& s);
glint::DisplaySettings readDisplay(const QJsonValue& value);

QJsonObject brightestResult(const glint::BrightestResult& r);
glint::BrightestResult readBrightestResult(const QJsonValue& value);

QJsonObject traceResult(const glint::TraceResult& r);
glint::TraceResult readTraceResult(const QJsonValue& value);

// The mask is stored zlib-compressed in base64 (a component of a large image stays small).
QJsonObject commonResult(const glint::CommonComponentResult& r);
glint::CommonComponentResult readCommonResult(const QJsonValue& value);

QJsonObject runRecord(const RunRecord& r);
RunRecord readRunRecord(const QJsonValue& value);

} // namespace sessionjson
} // namespace glint::ui
