#include "ui/display/HistogramWidget.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace glint::ui {

namespace {
const QColor kLowColour(80, 160, 255);
const QColor kHighColour(255, 120, 60);

QString formatValue(double v) { return QString::number(v, 'g', 6); }
} // namespace

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setToolTip(tr("Drag the blue (low) or orange (high) line to set the display limits"));
}

void HistogramWidget::setHistogram(const glint::Histogram& histogram) {
    histogram_ = histogram;
    update();
}

void HistogramWidget::clear() {
    histogram_ = {};
    update();
}

void HistogramWidget::setLimits(const glint::DisplayLimits& limits, glint::DisplayScale scale) {
    limits_ = limits;
    scale_ = scale;
    update();
}

QRectF HistogramWidget::plotRect() const {
    const int text = fontMetrics().height();
    return QRectF(6, 4, std::max(10, width() - 12), std::max(10, height() - 8 - text));
}

double HistogramWidget::valueToX(double value) const {
    const QRectF r = plotRect();
    if (!(histogram_.high > histogram_.low)) return r.left();
    const double p = glint::histogramAxisPosition(histogram_.axis, histogram_.low, histogram_.high, value);
    return r.left() + std::clamp(p, -10.0, 11.0) * r.width(); // far off the plot: still a finite x
}

double HistogramWidget::xToValue(double x) const {
    const QRectF r = plotRect();
    return glint::histogramAxisValue(histogram_.axis, histogram_.low, histogram_.high, (x - r.left()) / r.width());
}

HistogramWidget::Handle HistogramWidget::handleAt(double x) const {
    const QRectF r = plotRect();
    const double lowX = std::clamp(valueToX(limits_.low), r.left(), r.right());
    const double highX = std::clamp(valueToX(limits_.high), r.left(), r.right());
    const double dLow = std::abs(x - lowX), dHigh = std::abs(x - highX);
    if (std::min(dLow, dHigh) > 8.0) return Handle::None;
    // On a tie (both clamped to one edge), take the one that can move inwards from there.
    if (dLow == dHigh) return x <= (r.left() + r.right()) / 2 ? Handle::Low : Handle::High;
    return dLow < dHigh ? Handle::Low : Handle::High;
}

void HistogramWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRectF r = plotRect();
    p.setPen(palette().mid().color());
    p.drawRect(r);
    if (histogram_.counts.empty()) {
        p.setPen(palette().text().color());
        p.drawText(r, Qt::AlignCenter, tr("No image"));
        return;
    }
    // Heights: log10(1 + count), so that the sparse tails stay visible; each bin's count scaled to an
    // equal share of the axis, so that integer bins holding one level more than their neighbours do not
    // stand out as a comb.
    const std::size_t n = histogram_.counts.size();
    std::vector<double> heights(n);
    double top = 0.0;
    for (std::size_t i = 0; i < n; ++i) top = std::max(top, heights[i] = std::log10(1.0 + histogram_.axisDensity(i)));
    if (top <= 0.0) top = 1.0;
    QPainterPath bars;
    bars.moveTo(r.left(), r.bottom());
    for (std::size_t i = 0; i < n; ++i) {
        const double h = heights[i] / top * (r.height() - 2);
        bars.lineTo(valueToX(histogram_.binLow(i)), r.bottom() - h);
        bars.lineTo(valueToX(histogram_.binHigh(i)), r.bottom() - h);
    }
    bars.lineTo(r.right(), r.bottom());
    bars.closeSubpath();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.fillPath(bars, QColor(96, 116, 150));

    // The transfer curve between the limits (0 at the bottom, 1 at the top).
    const double lowX = valueToX(limits_.low), highX = valueToX(limits_.high);
    if (highX > lowX) {
        QPainterPath curve;
        for (int k = 0; k <= 64; ++k) {
            const double x = lowX + (highX - lowX) * k / 64.0;
            const double y = r.bottom() - glint::stretch(xToValue(x), limits_, scale_) * r.height();
            if (k == 0) curve.moveTo(x, y);
            else curve.lineTo(x, y);
        }
        p.save();
        p.setClipRect(r);
        p.setPen(QPen(QColor(120, 200, 120), 1.2, Qt::DashLine));
        p.drawPath(curve);
        p.restore();
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    const auto drawHandle = [&](double value, const QColor& colour) {
        const double x = std::clamp(valueToX(value), r.left(), r.right());
        p.setPen(QPen(colour, 2.0));
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
        p.setBrush(colour);
        const QPolygonF grip{QPointF(x - 5, r.top()), QPointF(x + 5, r.top()), QPointF(x, r.top() + 7)};
        p.drawPolygon(grip);
    };
    drawHandle(limits_.low, kLowColour);
    drawHandle(limits_.high, kHighColour);

    // Data beyond either end of the range shown (a zoomed histogram): an arrow there.
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(palette().text().color());
    const double midY = r.center().y();
    if (histogram_.below > 0)
        p.drawPolygon(QPolygonF{QPointF(r.left() + 1, midY), QPointF(r.left() + 7, midY - 5), QPointF(r.left() + 7, midY + 5)});
    if (histogram_.above > 0)
        p.drawPolygon(QPolygonF{QPointF(r.right() - 1, midY), QPointF(r.right() - 7, midY - 5), QPointF(r.right() - 7, midY + 5)});
    p.setRenderHint(QPainter::Antialiasing, false);

    p.setPen(palette().text().color());
    const QRectF textRow(r.left(), r.bottom() + 2, r.width(), fontMetrics().height());
    // Integer levels: label the first and last levels rather than the bins' outer edges (half a level out).
    const double step = histogram_.levelStep > 0.0 ? histogram_.levelStep : std::abs(histogram_.binWidth() - 1.0) < 1e-9 ? 1.0 : 0.0;
    const double inset = step / 2.0;
    const QString lowText = formatValue(histogram_.low + inset), highText = formatValue(histogram_.high - inset);
    const QString limitsText = tr("Limits %1 … %2").arg(formatValue(limits_.low), formatValue(limits_.high));
    // The range's ends only where they leave the limits room (long numbers, ±1.7e308, would overlap).
    const QFontMetrics fm = fontMetrics();
    const int edges = 2 * std::max(fm.horizontalAdvance(lowText), fm.horizontalAdvance(highText));
    if (edges + fm.horizontalAdvance(limitsText) + 16 <= textRow.width()) {
        p.drawText(textRow, Qt::AlignLeft | Qt::AlignVCenter, lowText);
        p.drawText(textRow, Qt::AlignRight | Qt::AlignVCenter, highText);
    }
    p.drawText(textRow, Qt::AlignHCenter | Qt::AlignVCenter, limitsText);
}

void HistogramWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || histogram_.counts.empty()) return;
    dragging_ = handleAt(event->position().x());
    if (dragging_ == Handle::None) {
        // A press away from both handles grabs the nearer one and moves it there.
        const double v = xToValue(event->position().x());
        dragging_ = std::abs(v - limits_.low) <= std::abs(v - limits_.high) ? Handle::Low : Handle::High;
        mouseMoveEvent(event);
    }
}

void HistogramWidget::mouseMoveEvent(QMouseEvent* event) {
    if (dragging_ == Handle::None) {
        setCursor(handleAt(event->position().x()) == Handle::None ? Qt::ArrowCursor : Qt::SizeHorCursor);
        return;
    }
    const QRectF r = plotRect();
    const double v = xToValue(std::clamp(event->position().x(), r.left(), r.right()));
    // Keep the limits ordered and apart by at least a thousandth of the range.
    const double gap = histogram_.high * 1e-3 - histogram_.low * 1e-3; // no overflow near ±1.7e308
    if (dragging_ == Handle::Low) limits_.low = std::min(v, limits_.high - gap);
    else limits_.high = std::max(v, limits_.low + gap);
    update();
    emit limitsDragged(limits_.low, limits_.high);
}

void HistogramWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || dragging_ == Handle::None) return;
    dragging_ = Handle::None;
    emit limitsDragFinished(limits_.low, limits_.high);
}

} // namespace glint::ui
