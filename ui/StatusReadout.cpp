#include "ui/StatusReadout.h"

#include "core/io/DicomVoi.h"

#include "ui/canvas/ViewTransform.h"
#include "ui/display/ColourSamples.h"
#include "core/io/Georef.h"
#include "core/io/Image.h"
#include "core/io/Wcs.h"
#include "core/jobs/Backend.h"

#include <QLabel>
#include <QStatusBar>

#include <algorithm>
#include <cmath>

namespace glint::ui {

StatusReadout::StatusReadout(QStatusBar& bar, QObject* parent)
    : QObject(parent), pixel_(new QLabel), value_(new QLabel), sky_(new QLabel), map_(new QLabel), zoom_(new QLabel), backend_(new QLabel) {
    pixel_->setMinimumWidth(120);
    value_->setMinimumWidth(130);
    sky_->setMinimumWidth(220);
    map_->setToolTip(tr("Map coordinates in the image's CRS, and WGS 84 longitude/latitude"));
    zoom_->setMinimumWidth(80);
    for (QLabel* l : {pixel_, value_, sky_, map_, zoom_, backend_}) {
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        bar.addPermanentWidget(l);
    }
    backend_->setText(QString::fromStdString(glint::backendStatusText()));
    backend_->setToolTip(tr("Where analyses run by default (auto backend)"));
}

void StatusReadout::setImage(std::shared_ptr<const glint::Image> image) {
    image_ = std::move(image);
    clearCursor();
}

QString StatusReadout::formatPixel(const glint::Image& image, int x, int y) {
    if (x < 0 || y < 0 || x >= image.width() || y >= image.height()) return {};
    return tr("x %1  y %2").arg(x).arg(y);
}

QString StatusReadout::formatValue(const glint::Image& image, int x, int y) {
    if (x < 0 || y < 0 || x >= image.width() || y >= image.height()) return {};
    if (image.isBlank(x, y)) return tr("value blank");
    const double v = image.value(x, y);
    if (std::isnan(v)) return tr("value blank");
    // CT: the rescaled value in Hounsfield units (DicomVoi's units).
    const QString units = image.meta.voi && !image.meta.voi->units.empty()
                              ? QStringLiteral(" ") + QString::fromStdString(image.meta.voi->units) : QString();
    if (image.meta.integerValued && std::abs(v) < 9.007199254740992e15)
        return tr("value %1").arg(static_cast<qint64>(v)) + units;
    return tr("value %1").arg(v, 0, 'g', 7) + units;
}

QString StatusReadout::formatSky(const glint::Image& image, int x, int y) {
    if (!image.meta.wcs || x < 0 || y < 0 || x >= image.width() || y >= image.height()) return {};
    const auto sky = image.meta.wcs->pixelToSky(x, y);
    if (!sky) return {};
    return tr("RA %1  Dec %2 (J2000)")
        .arg(QString::fromStdString(glint::formatRa(sky->ra)), QString::fromStdString(glint::formatDec(sky->dec)));
}

namespace {
// Decimals that resolve a tenth of `step` (0 to 9).
int decimalsFor(double step) {
    if (!(step > 0.0) || !std::isfinite(step)) return 6;
    return std::clamp(static_cast<int>(std::ceil(-std::log10(step / 10.0))), 0, 9);
}
} // namespace

QString StatusReadout::formatMap(const glint::Image& image, int x, int y) {
    const glint::Georef* g = image.meta.georef.get();
    if (!g || x < 0 || y < 0 || x >= image.width() || y >= image.height()) return {};
    const auto& gt = g->geoTransform();
    const double pixelSize = std::min(std::hypot(gt[1], gt[4]), std::hypot(gt[2], gt[5]));
    const int mapDecimals = decimalsFor(pixelSize);
    const glint::MapPoint map = g->pixelToMap(x, y);
    const QString unit = QString::fromStdString(g->unitSymbol());
    QString text = tr("X %1  Y %2%3")
                       .arg(map.x, 0, 'f', mapDecimals)
                       .arg(map.y, 0, 'f', mapDecimals)
                       .arg(unit.isEmpty() ? QString() : (unit == QStringLiteral("°") ? unit : QString(QLatin1Char(' ') + unit)));
    if (const auto ll = g->mapToLonLat(map)) {
        // A degree of latitude is about 111 km; a geographic CRS is already in degrees.
        const int d = decimalsFor(g->isGeographic() ? pixelSize : pixelSize / 111320.0);
        text += tr("  lon %1°  lat %2°").arg(ll->lon, 0, 'f', d).arg(ll->lat, 0, 'f', d);
    }
    return text;
}

void StatusReadout::showCursor(QPointF imagePoint) {
    if (!image_) return;
    const QPoint p = ViewTransform::pixelAt(imagePoint);
    pixel_->setText(formatPixel(*image_, p.x(), p.y()));
    QString value = formatValue(*image_, p.x(), p.y());
    // A colour file: the value is its luminance (what the analyses use); its R, G, B beside it.
    if (const auto colour = cachedColourSamplesOf(image_);
        colour && !value.isEmpty() && p.x() < colour->width && p.y() < colour->height) {
        const std::size_t i = static_cast<std::size_t>(p.y()) * colour->width + p.x();
        value += tr(" (luminance; RGB %1, %2, %3)").arg(colour->channel(i, 0)).arg(colour->channel(i, 1)).arg(colour->channel(i, 2));
    }
    value_->setText(value);
    sky_->setText(formatSky(*image_, p.x(), p.y()));
    map_->setText(formatMap(*image_, p.x(), p.y()));
}

void StatusReadout::clearCursor() {
    pixel_->clear();
    value_->clear();
    sky_->clear();
    map_->clear();
}

void StatusReadout::showZoom(double scale) { zoom_->setText(tr("zoom %1%").arg(scale * 100.0, 0, 'f', scale < 0.1 ? 1 : 0)); }

QString StatusReadout::pixelText() const { return pixel_->text(); }
QString StatusReadout::valueText() const { return value_->text(); }
QString StatusReadout::skyText() const { return sky_->text(); }
QString StatusReadout::mapText() const { return map_->text(); }
QString StatusReadout::backendText() const { return backend_->text(); }
QString StatusReadout::zoomText() const { return zoom_->text(); }

} // namespace glint::ui
