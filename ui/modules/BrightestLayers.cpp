#include "ui/modules/BrightestLayers.h"

#include <QFontMetricsF>
#include <QHash>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

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

// Text with a dark halo: legible over any pixel. The halo is the text drawn dark at the eight neighbouring
// offsets (glyph-cached, so a thousand labels stay fast; a stroked QPainterPath was ten times slower).
void drawHaloText(QPainter& painter, QPointF baseline, const QFont& font, const QString& text, const QColor& colour,
                  double opacity) {
    painter.setFont(font);
    painter.setPen(QColor(0, 0, 0, static_cast<int>(170 * opacity)));
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) painter.drawText(baseline + QPointF(dx, dy), text);
    painter.setPen(withOpacity(colour, opacity));
    painter.drawText(baseline, text);
}

// The label boxes placed so far, bucketed by screen area, so that a thousand labels are placed in
// near-linear time rather than each one tested against all the others.
class LabelBoxes {
public:
    void add(const QRectF& box) {
        const int index = static_cast<int>(boxes_.size());
        boxes_.append(box);
        forCells(box, [&](quint64 cell) {
            cells_[cell].append(index);
            return false;
        });
    }
    bool overlaps(const QRectF& box) const {
        return forCells(box, [&](quint64 cell) {
            const auto it = cells_.constFind(cell);
            if (it == cells_.cend()) return false;
            return std::any_of(it->cbegin(), it->cend(), [&](int i) { return boxes_[i].intersects(box); });
        });
    }

private:
    static constexpr double kCell = 64.0;
    template <class F>
    static bool forCells(const QRectF& box, F&& f) {
        const auto x0 = static_cast<qint32>(std::floor(box.left() / kCell)), x1 = static_cast<qint32>(std::floor(box.right() / kCell));
        const auto y0 = static_cast<qint32>(std::floor(box.top() / kCell)), y1 = static_cast<qint32>(std::floor(box.bottom() / kCell));
        for (qint32 y = y0; y <= y1; ++y)
            for (qint32 x = x0; x <= x1; ++x)
                if (f((static_cast<quint64>(static_cast<quint32>(y)) << 32) | static_cast<quint32>(x))) return true;
        return false;
    }
    QVector<QRectF> boxes_;
    QHash<quint64, QVector<int>> cells_;
};

// Greedy placement in the order given: each label takes the first spot around its rectangle (above left,
// below left, above right, below right, inside at the top) that lies in the viewport and covers no label
// placed before it nor anything in `taken`; a label with no free spot is left out (zooming in makes room),
// except a selected one. Drawn with a halo, the selected one last (on top).
void drawLabels(QPainter& painter, const QVector<RegionLabel>& labels, const QRectF& viewport, const QVector<QRectF>& taken) {
    const QFont font = labelFont(painter.font());
    const QFontMetricsF metrics(font);
    const double height = metrics.height() + 2.0;
    LabelBoxes boxes;
    for (const QRectF& r : taken) boxes.add(r);
    struct Placed {
        int index;
        QPointF baseline;
    };
    QVector<Placed> placed;
    for (int i = 0; i < labels.size(); ++i) {
        const RegionLabel& label = labels[i];
        const QRectF t = label.target;
        if (label.text.isEmpty() || !t.intersects(viewport)) continue;
        const double width = metrics.horizontalAdvance(label.text) + 4.0;
        const QPointF spots[] = {{t.left(), t.top() - height - 1.0}, {t.left(), t.bottom() + 1.0},
                                 {t.right() - width, t.top() - height - 1.0}, {t.right() - width, t.bottom() + 1.0},
                                 {t.left() + 2.0, t.top() + 2.0}};
        std::optional<QRectF> chosen;
        for (const QPointF& spot : spots) {
            QRectF box(spot, QSizeF(width, height));
            // Slide along the viewport's edges, so that a region partly off screen keeps its label in view.
            box.moveLeft(std::clamp(box.left(), viewport.left() + 2.0, std::max(viewport.left() + 2.0, viewport.right() - width - 2.0)));
            if (&spot == &spots[4])
                box.moveTop(std::clamp(box.top(), viewport.top() + 2.0, std::max(viewport.top() + 2.0, viewport.bottom() - height)));
            if (!viewport.contains(box) || boxes.overlaps(box)) continue;
            chosen = box;
            break;
        }
        if (!chosen && label.selected)
            chosen = QRectF(QPointF(std::max(viewport.left(), t.left()), std::max(viewport.top(), t.top() + 2.0)), QSizeF(width, height));
        if (!chosen) continue;
        boxes.add(*chosen);
        placed.append({i, QPointF(chosen->left() + 2.0, chosen->top() + 1.0 + metrics.ascent())});
    }
    std::stable_partition(placed.begin(), placed.end(), [&](const Placed& p) { return !labels[p.index].selected; });
    for (const Placed& p : placed) {
        const RegionLabel& label = labels[p.index];
        drawHaloText(painter, p.baseline, font, label.text, label.selected ? label.colour.lighter(150) : label.colour,
                     label.selected ? 1.0 : std::max(0.45, label.opacity));
    }
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

void BrightestRegionLayer::setShowLabels(bool show) {
    showLabels_ = show;
    emit changed();
}

QVector<RegionLabel> BrightestRegionLayer::labels(const ViewTransform& view) const {
    // The selected region first, then by rank: when labels compete for room, these win.
    QVector<RegionLabel> out;
    out.reserve(regions_.size());
    const auto add = [&](int i) {
        out.append({view.imageToWidget(itemBounds(i)), regions_[i].label, colour(), opacityForRank(regions_[i].rank),
                    i == selected()});
    };
    if (selected() >= 0) add(selected());
    for (int i = 0; i < regions_.size(); ++i)
        if (i != selected()) add(i);
    return out;
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
    const QRectF viewport = paintArea(painter);
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

    if (showLabels_) drawLabels(painter, labels(view), viewport, {});
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

QRectF BrightestSweepLayer::legendRect(const QRectF& viewport, const ViewTransform& view) const {
    if (pivots_.isEmpty()) return {};
    const QFontMetricsF metrics(legendFont());
    double textWidth = 0.0;
    for (const Pivot& p : pivots_) textWidth = std::max(textWidth, metrics.horizontalAdvance(p.text));
    const double line = std::max(metrics.height(), kSwatch) + 3.0;
    const QSizeF size(textWidth + kSwatch + 6.0 + 2 * kLegendPadding, pivots_.size() * line - 3.0 + 2 * kLegendPadding);
    const double left = viewport.left() + kLegendMargin;
    const double right = viewport.right() - kLegendMargin - size.width();
    const double top = viewport.top() + kLegendMargin;
    const double bottom = viewport.bottom() - kLegendMargin - size.height();
    const QRectF corners[4] = {QRectF(QPointF(right, top), size), QRectF(QPointF(left, top), size),
                               QRectF(QPointF(right, bottom), size), QRectF(QPointF(left, bottom), size)};
    // What the legend should not cover: the shown regions with room for their labels above, then the image.
    QVector<QRectF> regions;
    for (const Pivot& p : pivots_) {
        if (!p.layer || !p.layer->isVisible()) continue;
        for (int i = 0; i < p.layer->itemCount(); ++i)
            regions.append(view.imageToWidget(p.layer->itemBounds(i)).adjusted(0, -metrics.height() - 4.0, 0, 0));
    }
    const QRectF image = view.imageRectInWidget();
    const auto area = [](const QRectF& r) { return r.isValid() ? r.width() * r.height() : 0.0; };
    QRectF best = corners[0];
    double bestCost = std::numeric_limits<double>::infinity();
    for (const QRectF& c : corners) {
        double cost = area(c.intersected(image));
        for (const QRectF& r : regions) cost += 100.0 * area(c.intersected(r));
        if (cost < bestCost - 1e-9) {
            bestCost = cost;
            best = c;
        }
    }
    return best;
}

void BrightestSweepLayer::paint(QPainter& painter, const ViewTransform& view) const {
    const QRectF viewport = paintArea(painter);
    const QRectF box = legendRect(viewport, view);
    if (box.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    // The pivots' labels, placed together (selected ones first, then pivot by pivot) and clear of the legend.
    QVector<RegionLabel> labels;
    QVector<RegionLabel> rest;
    for (const Pivot& p : pivots_) {
        if (!p.layer || !p.layer->isVisible()) continue;
        for (const RegionLabel& label : p.layer->labels(view)) (label.selected ? labels : rest).append(label);
    }
    labels += rest;
    drawLabels(painter, labels, viewport, {box});
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
