#include "ui/display/HistogramWidget.h"

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
    return r.left() + (value - histogram_.low) / (histogram_.high - histogram_.low) * r.width();
}

double HistogramWidget::xToValue(double x) const {
    const QRectF r = plotRect();
    return histogram_.low + (x - r.left()) / r.width() * (histogram_.high - histogram_.low);
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
        p.drawText(r, Qt::AlignCenter, tr("no image"));
        return;
    }
    double top = 0.0;
    for (auto c : histogram_.counts) top = std::max(top, std::log10(1.0 + static_cast<double>(c)));
    if (top <= 0.0) top = 1.0;
    // Bars as one filled path: log10(1 + count), so that the sparse tails stay visible.
    QPainterPath bars;
    bars.moveTo(r.left(), r.bottom());
    const double n = static_cast<double>(histogram_.counts.size());
    for (std::size_t i = 0; i < histogram_.counts.size(); ++i) {
        const double h = std::log10(1.0 + static_cast<double>(histogram_.counts[i])) / top * (r.height() - 2);
        const double x0 = r.left() + i / n * r.width(), x1 = r.left() + (i + 1) / n * r.width();
        bars.lineTo(x0, r.bottom() - h);
        bars.lineTo(x1, r.bottom() - h);
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

    p.setPen(palette().text().color());
    const QRectF textRow(r.left(), r.bottom() + 2, r.width(), fontMetrics().height());
    // One bin per integer level: label the first and last levels rather than the bins' outer edges.
    const double w = histogram_.binWidth();
    const double inset = std::abs(w - 1.0) < 1e-9 ? 0.5 : 0.0;
    p.drawText(textRow, Qt::AlignLeft | Qt::AlignVCenter, formatValue(histogram_.low + inset));
    p.drawText(textRow, Qt::AlignRight | Qt::AlignVCenter, formatValue(histogram_.high - inset));
    p.drawText(textRow, Qt::AlignHCenter | Qt::AlignVCenter,
               tr("limits %1 … %2").arg(formatValue(limits_.low), formatValue(limits_.high)));
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
    const double gap = (histogram_.high - histogram_.low) * 1e-3;
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
