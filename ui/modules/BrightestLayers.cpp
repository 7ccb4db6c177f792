#include "modules/BrightestLayers.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint::ui {

namespace {

QFont labelFont(QFont font) {
    font.setBold(true);
    if (font.pointSizeF() > 0 && font.pointSizeF() < 9.0) font.setPointSizeF(9.0);
    return font;
}

QColor withOpacity(QColor colour, double opacity) {
    colour.setAlphaF(static_cast<float>(colour.alphaF() * opacity));
    return colour;
}

// Text with a dark halo: legible over any pixel.
void drawHaloText(QPainter& painter, QPointF baseline, const QFont& font, const QString& text, const QColor& colour,
                  double opacity) {
    QPainterPath path;
    path.addText(baseline, font, text);
    painter.strokePath(path, QPen(QColor(0, 0, 0, static_cast<int>(200 * opacity)), 3.0, Qt::SolidLine, Qt::RoundCap,
                                  Qt::RoundJoin));
    painter.fillPath(path, withOpacity(colour, opacity));
}

} // namespace

// ---------------------------------------------------------------------------------------------------------

BrightestRegionLayer::BrightestRegionLayer(const QString& name, const QColor& colour, QObject* parent)
    : OverlayLayer(name, colour, parent) {}

void BrightestRegionLayer::setRegions(QVector<RegionMark> regions) {
    regions_ = std::move(regions);
    itemsChanged();
}

void BrightestRegionLayer::setFadeWithRank(bool fade) {
    fade_ = fade;
    emit changed();
}

double BrightestRegionLayer::opacityForRank(int rank) const {
    const int k = static_cast<int>(regions_.size());
    if (!fade_ || k < 2 || rank <= 1) return 1.0;
    // Logarithmic, so that the first few ranks stay distinct and the long tail recedes together.
    return 1.0 - 0.75 * std::log(static_cast<double>(std::min(rank, k))) / std::log(static_cast<double>(k));
}

QRectF BrightestRegionLayer::itemBounds(int index) const {
    return index >= 0 && index < regions_.size() ? ViewTransform::pixelArea(regions_[index].pixels) : QRectF();
}

int BrightestRegionLayer::hitTest(QPointF p, double tolerance) const {
    // Rank 1 is drawn on top, so edges are tried in rank order; inside, the smallest region containing the
    // point wins, so that a region nested in a larger one can still be picked.
    int best = -1;
    double bestArea = std::numeric_limits<double>::infinity();
    for (int i = 0; i < regions_.size(); ++i) {
        const QRectF r = itemBounds(i);
        const QPointF corners[4] = {r.topLeft(), r.topRight(), r.bottomRight(), r.bottomLeft()};
        for (int k = 0; k < 4; ++k)
            if (distanceToSegment(p, corners[k], corners[(k + 1) % 4]) <= tolerance) return i;
        if (r.contains(p) && r.width() * r.height() < bestArea) {
            bestArea = r.width() * r.height();
            best = i;
        }
    }
    return best;
}

void BrightestRegionLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (regions_.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QRectF viewport(painter.viewport());
    const QColor colour = this->colour();
    const int selectedItem = selected();

    // Rectangles, worst rank first so that the best ones lie on top.
    painter.setBrush(Qt::NoBrush);
    for (int i = static_cast<int>(regions_.size()) - 1; i >= 0; --i) {
        const QRectF w = view.imageToWidget(itemBounds(i));
        if (!w.intersects(viewport.adjusted(-4, -4, 4, 4))) continue;
        const bool isSelected = i == selectedItem;
        const double opacity = isSelected ? 1.0 : opacityForRank(regions_[i].rank);
        painter.setPen(QPen(QColor(0, 0, 0, static_cast<int>((isSelected ? 170 : 110) * opacity)), isSelected ? 5.0 : 3.5));
        painter.drawRect(w);
        painter.setPen(QPen(withOpacity(isSelected ? colour.lighter(150) : colour, opacity), isSelected ? 2.5 : 1.5));
        painter.drawRect(w);
    }

    // Labels: the selected region first, then by rank; one that would cover a label already placed is left
    // out (zooming in makes room for it).
    const QFont font = labelFont(painter.font());
    const QFontMetricsF metrics(font);
    QVector<int> order;
    order.reserve(regions_.size());
    if (selectedItem >= 0) order.append(selectedItem);
    for (int i = 0; i < regions_.size(); ++i)
        if (i != selectedItem) order.append(i);
    struct Placed {
        int item;
        QRectF box;
        QPointF baseline;
    };
    QVector<Placed> placed;
    for (int i : order) {
        const RegionMark& r = regions_[i];
        if (r.label.isEmpty()) continue;
        const QRectF w = view.imageToWidget(itemBounds(i));
        const double width = metrics.horizontalAdvance(r.label) + 2.0;
        double x = std::clamp(w.left(), viewport.left() + 2.0, std::max(viewport.left() + 2.0, viewport.right() - width - 2.0));
        double baseline = w.top() - metrics.descent() - 3.0;
        if (baseline - metrics.ascent() < viewport.top()) baseline = w.top() + metrics.ascent() + 3.0; // inside, at the top
        const QRectF box(x - 1.0, baseline - metrics.ascent() - 1.0, width, metrics.height() + 2.0);
        if (!box.intersects(viewport)) continue;
        const bool clash = std::any_of(placed.cbegin(), placed.cend(), [&](const Placed& p) { return p.box.intersects(box); });
        if (clash && i != selectedItem) continue;
        placed.append({i, box, QPointF(x, baseline)});
    }
    for (auto it = placed.crbegin(); it != placed.crend(); ++it) { // the selected one is drawn last, on top
        const bool isSelected = it->item == selectedItem;
        const double opacity = isSelected ? 1.0 : std::max(0.45, opacityForRank(regions_[it->item].rank));
        drawHaloText(painter, it->baseline, font, regions_[it->item].label, isSelected ? colour.lighter(150) : colour, opacity);
    }
    painter.restore();
}

// ---------------------------------------------------------------------------------------------------------

BrightestSweepLayer::BrightestSweepLayer(const QString& name, QObject* parent)
    : OverlayLayer(name, QColor(255, 255, 255), parent) {
    connect(this, &OverlayLayer::selectionChanged, this, &BrightestSweepLayer::forwardSelection);
}

void BrightestSweepLayer::addPivot(BrightestRegionLayer* layer, const QString& legendText) {
    const int index = static_cast<int>(pivots_.size());
    pivots_.append({layer, legendText, total_, layer->itemCount()});
    total_ += layer->itemCount();
    connect(layer, &OverlayLayer::selectionChanged, this, [this, index](int item) { pivotSelectionChanged(index, item); });
    // The legend shows each pivot layer's colour and visibility.
    connect(layer, &OverlayLayer::propertiesChanged, this, &OverlayLayer::changed);
    connect(layer, &QObject::destroyed, this, &OverlayLayer::changed);
    itemsChanged();
}

QRectF BrightestSweepLayer::itemBounds(int index) const {
    for (const Pivot& p : pivots_)
        if (index >= p.first && index < p.first + p.count) return p.layer ? p.layer->itemBounds(index - p.first) : QRectF();
    return {};
}

void BrightestSweepLayer::forwardSelection(int index) {
    forwarding_ = true;
    for (const Pivot& p : pivots_)
        if (p.layer) p.layer->setSelected(index >= p.first && index < p.first + p.count ? index - p.first : -1);
    forwarding_ = false;
}

void BrightestSweepLayer::pivotSelectionChanged(int pivot, int item) {
    if (forwarding_) return;
    const Pivot& p = pivots_[pivot];
    if (item >= 0) setSelected(p.first + item);
    else if (selected() >= p.first && selected() < p.first + p.count) setSelected(-1);
}

namespace {
QFont legendFont() {
    QFont font;
    font.setPointSizeF(9.0);
    return font;
}
constexpr double kLegendMargin = 10.0;
constexpr double kLegendPadding = 7.0;
constexpr double kSwatch = 12.0;
} // namespace

QRectF BrightestSweepLayer::legendRect(const QRectF& viewport) const {
    if (pivots_.isEmpty()) return {};
    const QFontMetricsF metrics(legendFont());
    double textWidth = 0.0;
    for (const Pivot& p : pivots_) textWidth = std::max(textWidth, metrics.horizontalAdvance(p.text));
    const double line = std::max(metrics.height(), kSwatch) + 3.0;
    const QSizeF size(textWidth + kSwatch + 6.0 + 2 * kLegendPadding, pivots_.size() * line - 3.0 + 2 * kLegendPadding);
    return {QPointF(viewport.right() - kLegendMargin - size.width(), viewport.top() + kLegendMargin), size};
}

void BrightestSweepLayer::paint(QPainter& painter, const ViewTransform&) const {
    const QRectF box = legendRect(QRectF(painter.viewport()));
    if (box.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(QColor(255, 255, 255, 90), 1.0));
    painter.setBrush(QColor(0, 0, 0, 175));
    painter.drawRoundedRect(box, 4.0, 4.0);
    const QFont font = legendFont();
    const QFontMetricsF metrics(font);
    painter.setFont(font);
    const double line = std::max(metrics.height(), kSwatch) + 3.0;
    double top = box.top() + kLegendPadding;
    for (const Pivot& p : pivots_) {
        const bool shown = p.layer && p.layer->isVisible();
        const QColor colour = p.layer ? p.layer->colour() : QColor(128, 128, 128);
        const QRectF swatch(std::round(box.left() + kLegendPadding) + 0.5,
                            std::round(top + (line - 3.0 - kSwatch) / 2.0) + 0.5, kSwatch, kSwatch);
        painter.setPen(QPen(colour, 1.0));
        painter.setBrush(shown ? QBrush(colour) : Qt::NoBrush); // a hollow swatch: the pivot's layer is hidden
        painter.drawRect(swatch);
        painter.setPen(shown ? QColor(240, 240, 240) : QColor(150, 150, 150));
        painter.drawText(QPointF(swatch.right() + 6.0, top + (line - 3.0 - metrics.height()) / 2.0 + metrics.ascent()), p.text);
        top += line;
    }
    painter.restore();
}

// ---------------------------------------------------------------------------------------------------------

BrightestExclusionLayer::BrightestExclusionLayer(const QString& name, const QColor& colour, QObject* parent)
    : ShapeLayer(name, colour, parent) {
    setFilled(true);
}

void BrightestExclusionLayer::paint(QPainter& painter, const ViewTransform& view) const {
    ShapeLayer::paint(painter, view);
    painter.save();
    painter.setPen(Qt::NoPen);
    QColor hatch = colour();
    hatch.setAlpha(170);
    painter.setBrush(QBrush(hatch, Qt::BDiagPattern)); // a screen-space pattern: the same density at any zoom
    for (const OverlayShape& s : shapes())
        if (s.kind == OverlayShape::Kind::Rectangle || s.kind == OverlayShape::Kind::Polygon)
            painter.drawPolygon(view.imageToWidget(s.points), Qt::OddEvenFill);
    painter.restore();
}

} // namespace glint::ui
