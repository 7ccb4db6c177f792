#include "ui/modules/BrightestLayers.h"

#include <QCache>
#include <QFontMetricsF>
#include <QHash>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace glint::ui {

namespace {

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

// Whether the painter draws whole pixels of a raster device (the canvas, a picture at scale 1): then labels and a
// crowded view's outlines may be drawn as images. Not for vector output (SVG, PDF) or a scaled painter.
bool rasterPixels(const QPainter& painter) {
    return painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster &&
           OverlayLayer::deviceScale(painter) == 1.0 && painter.transform().type() <= QTransform::TxTranslate;
}

// drawHaloText through a cache of finished labels (an image each, keyed by text, font, colour and opacity): a label
// is drawn nine times for its halo, which made the text most of a frame's time with many regions in view. Used
// where rasterPixels(); elsewhere (vector output, a scaled painter) the text is drawn as text.
void drawHaloTextCached(QPainter& painter, QPointF baseline, const QFont& font, const QString& text, const QColor& colour,
                        double opacity) {
    if (!rasterPixels(painter)) {
        drawHaloText(painter, baseline, font, text, colour, opacity);
        return;
    }
    thread_local QCache<QString, QImage> cache(4000);
    const QString key = text + QLatin1Char('|') + font.key() + QLatin1Char('|') + QString::number(colour.rgba(), 16) +
                        QLatin1Char('|') + QString::number(static_cast<int>(std::lround(opacity * 1000.0)));
    const QFontMetricsF metrics(font);
    const QPointF origin(2.0, 2.0 + std::ceil(metrics.ascent()));
    QImage* sprite = cache.object(key);
    if (!sprite) {
        sprite = new QImage(static_cast<int>(std::ceil(metrics.horizontalAdvance(text))) + 6,
                            static_cast<int>(std::ceil(metrics.height())) + 6, QImage::Format_ARGB32_Premultiplied);
        sprite->fill(Qt::transparent);
        {
            QPainter p(sprite);
            p.setRenderHints(painter.renderHints());
            drawHaloText(p, origin, font, text, colour, opacity);
        }
        cache.insert(key, sprite);
    }
    const QPointF at = baseline - origin;
    painter.drawImage(QPointF(std::round(at.x()), std::round(at.y())), *sprite);
}

// Boxes bucketed by screen area, so that a thousand labels are placed in near-linear time rather than
// each one tested against all the others. Boxes are clipped to `bounds` (a region far off screen at a
// high zoom would otherwise span millions of cells).
class BoxIndex {
public:
    explicit BoxIndex(const QRectF& bounds) : bounds_(bounds) {}
    void add(const QRectF& box) {
        const QRectF clipped = box.intersected(bounds_);
        if (clipped.isEmpty()) return;
        const int index = static_cast<int>(boxes_.size());
        boxes_.append(clipped);
        seen_.push_back(0);
        forCells(clipped, [&](quint64 cell) {
            cells_[cell].append(index);
            return false;
        });
    }
    bool overlaps(const QRectF& box) const {
        return forCells(box.intersected(bounds_), [&](quint64 cell) {
            const auto it = cells_.constFind(cell);
            if (it == cells_.cend()) return false;
            return std::any_of(it->cbegin(), it->cend(), [&](int i) { return boxes_[i].intersects(box); });
        });
    }
    // How many boxes `box` overlaps (each counted once).
    int countOverlaps(const QRectF& box) const {
        int count = 0;
        const unsigned stamp = nextStamp();
        forCells(box.intersected(bounds_), [&](quint64 cell) {
            const auto it = cells_.constFind(cell);
            if (it != cells_.cend())
                for (int i : *it)
                    if (seen_[i] != stamp && boxes_[i].intersects(box)) {
                        seen_[i] = stamp;
                        ++count;
                    }
            return false;
        });
        return count;
    }
    // The summed area of `box` that lies over the boxes (overlapping boxes counted twice).
    double coveredArea(const QRectF& box) const {
        double area = 0.0;
        const unsigned stamp = nextStamp();
        forCells(box.intersected(bounds_), [&](quint64 cell) {
            const auto it = cells_.constFind(cell);
            if (it == cells_.cend()) return false;
            for (int i : *it) {
                if (seen_[i] == stamp) continue;
                seen_[i] = stamp;
                const QRectF common = boxes_[i].intersected(box);
                if (!common.isEmpty()) area += common.width() * common.height();
            }
            return false;
        });
        return area;
    }

private:
    static constexpr double kCell = 64.0;
    template <class F>
    static bool forCells(const QRectF& box, F&& f) {
        if (box.isEmpty()) return false;
        const auto x0 = static_cast<qint32>(std::floor(box.left() / kCell)), x1 = static_cast<qint32>(std::floor(box.right() / kCell));
        const auto y0 = static_cast<qint32>(std::floor(box.top() / kCell)), y1 = static_cast<qint32>(std::floor(box.bottom() / kCell));
        for (qint32 y = y0; y <= y1; ++y)
            for (qint32 x = x0; x <= x1; ++x)
                if (f((static_cast<quint64>(static_cast<quint32>(y)) << 32) | static_cast<quint32>(x))) return true;
        return false;
    }
    // A stamp per box, so that a query counts each box once (a box spans several cells) in constant time.
    unsigned nextStamp() const {
        if (++stamp_ == 0) { // wrapped: clear the old stamps
            std::fill(seen_.begin(), seen_.end(), 0u);
            stamp_ = 1;
        }
        return stamp_;
    }
    QRectF bounds_;
    QVector<QRectF> boxes_;
    mutable std::vector<unsigned> seen_;
    mutable unsigned stamp_ = 0;
    QHash<quint64, QVector<int>> cells_;
};

// The shortest segment between two rectangles (between their nearest points); null when they touch.
QLineF gapBetween(const QRectF& a, const QRectF& b) {
    const auto span = [](double a0, double a1, double b0, double b1) -> std::pair<double, double> {
        if (a1 < b0) return {a1, b0};
        if (b1 < a0) return {a0, b1};
        const double mid = (std::max(a0, b0) + std::min(a1, b1)) / 2.0; // overlapping: straight across
        return {mid, mid};
    };
    const auto [ax, bx] = span(a.left(), a.right(), b.left(), b.right());
    const auto [ay, by] = span(a.top(), a.bottom(), b.top(), b.bottom());
    const QLineF line(ax, ay, bx, by);
    return line.length() <= 3.0 ? QLineF() : line;
}

constexpr double kLabelGap = 2.0;                               // between a label and its rectangle
constexpr double kRings[] = {0.0, 14.0, 30.0, 54.0, 90.0, 140.0}; // how far out labels are tried
constexpr double kClearance = 6.0;                              // around a label without priority
constexpr int kDetailedBoxes = 400;  // rectangles in view drawn with halo and antialiasing; more are drawn plain

} // namespace

QFont regionLabelFont(const QFont& base) {
    QFont font = base;
    font.setBold(true);
    if (font.pointSizeF() > 0 && font.pointSizeF() < 9.0) font.setPointSizeF(9.0);
    return font;
}

QVector<PlacedLabel> placeRegionLabels(const QVector<RegionLabel>& labels, const QFontMetricsF& metrics,
                                       const QRectF& viewport, const QVector<QRectF>& taken) {
    const double height = metrics.height() + 2.0;
    const QRectF bounds = viewport.adjusted(-8, -8, 8, 8);
    BoxIndex placedBoxes(bounds); // labels placed so far and `taken`: never covered
    for (const QRectF& r : taken) placedBoxes.add(r);
    BoxIndex regions(bounds); // every region's rectangle: covered as little as possible
    for (const RegionLabel& label : labels)
        if (label.target.intersects(bounds)) regions.add(label.target);

    // The labels without priority stop at this much of the viewport.
    const double densityLimit = kLabelDensity * viewport.width() * viewport.height();
    double minorArea = 0.0;
    QVector<PlacedLabel> placed;
    for (int i = 0; i < labels.size(); ++i) {
        const RegionLabel& label = labels[i];
        const QRectF t = label.target;
        if (label.text.isEmpty() || !t.intersects(viewport)) continue;
        if (!label.priority && !label.mustShow && minorArea >= densityLimit) continue;
        const double width = metrics.horizontalAdvance(label.text) + 4.0;
        const QSizeF size(width, height);
        const double ownArea = std::max(1.0, t.width() * t.height());

        struct Candidate {
            QRectF box;
            double cost = std::numeric_limits<double>::infinity();
            int labelsCovered = 0;
        };
        Candidate best, forced; // forced: the best spot when labels may be covered (mustShow labels)
        const bool priority = label.priority || label.mustShow;
        const auto consider = [&](QPointF topLeft, double ringCost) {
            QRectF box(topLeft, size);
            // Slide into the viewport, so that a region partly off screen keeps its label in view.
            box.moveLeft(std::clamp(box.left(), viewport.left() + 2.0, std::max(viewport.left() + 2.0, viewport.right() - width - 2.0)));
            box.moveTop(std::clamp(box.top(), viewport.top() + 2.0, std::max(viewport.top() + 2.0, viewport.bottom() - height - 2.0)));
            if (!viewport.contains(box)) return;
            if (!priority) {
                // Without priority: next to its region (a leader line would add clutter for a minor rank), clear
                // of the other labels by a few pixels (no wall of labels), and tested cheaply first: on a crowded
                // frame most spots are taken.
                if (!gapBetween(box, t).isNull()) return;
                if (placedBoxes.overlaps(box.adjusted(-kClearance, -kClearance, kClearance, kClearance))) return;
            }
            // Cost: covering the own region counts double (its label would hide what it names), covering
            // another region once, each relative to the label's size; then the distance out.
            const QRectF own = box.intersected(t);
            const double ownCovered = own.isEmpty() ? 0.0 : own.width() * own.height();
            const double otherCovered = std::max(0.0, regions.coveredArea(box) - ownCovered);
            const double area = width * height;
            // Inside a region much larger than the label, covering it matters less (a small corner of it).
            const double ownWeight = ownCovered > 0.0 ? 2.0 * std::min(1.0, 4.0 * area / ownArea) + 1.0 : 0.0;
            const double cost = ownWeight * ownCovered / area + otherCovered / area + ringCost;
            const int covered = priority ? placedBoxes.countOverlaps(box) : 0;
            if (covered == 0 && cost < best.cost) best = {box, cost, 0};
            if (label.mustShow && (covered < forced.labelsCovered || (covered == forced.labelsCovered && cost < forced.cost)))
                forced = {box, cost, covered};
        };
        forced.labelsCovered = std::numeric_limits<int>::max();
        const std::size_t rings = priority ? std::size(kRings) : 1;
        for (std::size_t ring = 0; ring < rings; ++ring) {
            const QRectF r = t.adjusted(-kRings[ring] - kLabelGap, -kRings[ring] - kLabelGap, kRings[ring] + kLabelGap,
                                        kRings[ring] + kLabelGap);
            const double ringCost = 0.05 * static_cast<double>(ring);
            // Above and below (left end, right end, centred), then beside (top, bottom).
            const double cx = r.center().x() - width / 2.0, cy = r.center().y() - height / 2.0;
            const QPointF spots[] = {{r.left(), r.top() - height},          {r.left(), r.bottom()},
                                     {r.right() - width, r.top() - height}, {r.right() - width, r.bottom()},
                                     {cx, r.top() - height},                {cx, r.bottom()},
                                     {r.right(), r.top()},                  {r.left() - width, r.top()},
                                     {r.right(), r.bottom() - height},      {r.left() - width, r.bottom() - height},
                                     {r.right(), cy},                       {r.left() - width, cy}};
            for (std::size_t k = 0; k < std::size(spots); ++k) consider(spots[k], ringCost + 0.001 * static_cast<double>(k));
            if (best.cost < ringCost + 0.05) break; // a free spot that covers no region: nothing farther is better
        }
        // Inside the region, at its top: where a large region has room and nothing outside was free.
        consider(QPointF(t.left() + kLabelGap, t.top() + kLabelGap), 0.3);
        const Candidate* chosen = std::isfinite(best.cost) ? &best : nullptr;
        if (!chosen && label.mustShow && std::isfinite(forced.cost)) chosen = &forced;
        if (!chosen) continue;
        placedBoxes.add(chosen->box);
        if (!priority) minorArea += chosen->box.width() * chosen->box.height();
        placed.append({i, chosen->box, gapBetween(chosen->box, t)});
    }
    return placed;
}

namespace {

// Labels placed by placeRegionLabels, drawn with a halo (and their leader lines), the selected one last
// (on top).
void drawPlacedLabels(QPainter& painter, const QVector<RegionLabel>& labels, QVector<PlacedLabel> placed) {
    const QFont font = regionLabelFont(painter.font());
    const QFontMetricsF metrics(font);
    std::stable_partition(placed.begin(), placed.end(), [&](const PlacedLabel& p) { return !labels[p.index].selected; });
    for (const PlacedLabel& p : placed) {
        const RegionLabel& label = labels[p.index];
        const QColor colour = label.selected ? label.colour.lighter(150) : label.colour;
        const double opacity = label.selected ? 1.0 : std::max(0.45, label.opacity);
        if (!p.leader.isNull()) {
            painter.setPen(QPen(QColor(0, 0, 0, static_cast<int>(150 * opacity)), 3.0));
            painter.drawLine(p.leader);
            painter.setPen(QPen(withOpacity(colour, opacity), 1.2));
            painter.drawLine(p.leader);
        }
        drawHaloTextCached(painter, QPointF(p.box.left() + 2.0, p.box.top() + 1.0 + metrics.ascent()), font, label.text, colour, opacity);
    }
}

void drawLabels(QPainter& painter, const QVector<RegionLabel>& labels, const QRectF& viewport, const QVector<QRectF>& taken) {
    const QFontMetricsF metrics(regionLabelFont(painter.font()));
    drawPlacedLabels(painter, labels, placeRegionLabels(labels, metrics, viewport, taken));
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
        const bool isSelected = i == selected();
        const int rank = regions_[i].rank;
        out.append({view.imageToWidget(itemBounds(i)), regions_[i].label, colour(), opacityForRank(rank), isSelected,
                    isSelected || rank == 1, isSelected || rank <= kAlwaysLabelledRanks});
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

QVector<PlacedLabel> BrightestRegionLayer::placedLabels(const ViewTransform& view, const QRectF& viewport, const QFont& font) const {
    if (!showLabels_ || !showsLabels() || regions_.isEmpty()) return {};
    return placeRegionLabels(labels(view), QFontMetricsF(regionLabelFont(font)), viewport, {});
}

void BrightestRegionLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (regions_.isEmpty()) return;
    painter.save();
    const QRectF viewport = paintArea(painter);
    const QColor colour = this->colour();
    const int selectedItem = selected();

    if (showsShapes()) {
        // Only the rectangles in view; worst rank first so that the best ones lie on top.
        const QRectF area = viewport.adjusted(-4, -4, 4, 4);
        const QRectF visible = view.widgetToImage(area); // tested in image coordinates: 10 000 stay cheap
        QVector<int> shown;
        for (int i = static_cast<int>(regions_.size()) - 1; i >= 0; --i)
            if (i != selectedItem && itemBounds(i).intersects(visible)) shown.append(i);
        painter.setBrush(Qt::NoBrush);
        if (shown.size() <= kDetailedBoxes) {
            painter.setRenderHint(QPainter::Antialiasing, true);
            for (const int i : shown) {
                const QRectF w = view.imageToWidget(itemBounds(i));
                const double opacity = opacityForRank(regions_[i].rank);
                painter.setPen(QPen(QColor(0, 0, 0, static_cast<int>(110 * opacity)), 3.5));
                painter.drawRect(w);
                painter.setPen(QPen(withOpacity(colour, opacity), 1.5));
                painter.drawRect(w);
            }
        } else {
            // Many rectangles in view (a crowded frame zoomed out): thin, without halo or antialiasing, in a few
            // steps of opacity, so that panning and zooming over 10 000 stay smooth. On the canvas (whole device
            // pixels) their outlines are written straight into one transparent image, drawn once: a tenth of the
            // time of 10 000 stroked rectangles; a scaled painter (an export) strokes them.
            painter.setRenderHint(QPainter::Antialiasing, false);
            constexpr int kSteps = 6;
            const auto stepOf = [&](int i) {
                const double opacity = opacityForRank(regions_[i].rank);
                return std::clamp(static_cast<int>(std::lround((1.0 - opacity) / 0.75 * (kSteps - 1))), 0, kSteps - 1);
            };
            const auto stepColour = [&](int step) { return withOpacity(colour, 1.0 - 0.75 * step / (kSteps - 1)); };
            const QRect device = viewport.toAlignedRect();
            if (rasterPixels(painter) && !device.isEmpty()) {
                if (boxCache_.size() != device.size()) boxCache_ = QImage(device.size(), QImage::Format_ARGB32_Premultiplied);
                boxCache_.fill(Qt::transparent);
                const int w = boxCache_.width(), h = boxCache_.height();
                auto* bits = reinterpret_cast<QRgb*>(boxCache_.bits());
                const qsizetype stride = boxCache_.bytesPerLine() / 4;
                QRgb premultiplied[kSteps];
                for (int step = 0; step < kSteps; ++step) premultiplied[step] = qPremultiply(stepColour(step).rgba());
                for (const int i : shown) {
                    const QRectF r = view.imageToWidget(itemBounds(i)).translated(-device.topLeft());
                    const int x0 = static_cast<int>(std::lround(r.left())), x1 = std::max(x0, static_cast<int>(std::lround(r.right())) - 1);
                    const int y0 = static_cast<int>(std::lround(r.top())), y1 = std::max(y0, static_cast<int>(std::lround(r.bottom())) - 1);
                    if (x1 < 0 || y1 < 0 || x0 >= w || y0 >= h) continue;
                    const QRgb c = premultiplied[stepOf(i)];
                    const int cx0 = std::max(x0, 0), cx1 = std::min(x1, w - 1), cy0 = std::max(y0, 0), cy1 = std::min(y1, h - 1);
                    for (const int y : {y0, y1})
                        if (y >= 0 && y < h) std::fill(bits + y * stride + cx0, bits + y * stride + cx1 + 1, c);
                    for (const int x : {x0, x1})
                        if (x >= 0 && x < w)
                            for (int y = cy0; y <= cy1; ++y) bits[y * stride + x] = c;
                }
                painter.drawImage(device.topLeft(), boxCache_);
            } else {
                QVector<QRectF> batch[kSteps];
                for (const int i : shown) batch[stepOf(i)].append(view.imageToWidget(itemBounds(i)));
                for (int step = kSteps - 1; step >= 0; --step) {
                    if (batch[step].isEmpty()) continue;
                    painter.setPen(QPen(stepColour(step), 0.0));
                    painter.drawRects(batch[step].constData(), static_cast<int>(batch[step].size()));
                }
            }
        }
        if (selectedItem >= 0 && selectedItem < regions_.size()) {
            painter.setRenderHint(QPainter::Antialiasing, true);
            const QRectF w = view.imageToWidget(itemBounds(selectedItem));
            painter.setPen(QPen(QColor(0, 0, 0, 170), 5.0));
            painter.drawRect(w);
            painter.setPen(QPen(colour.lighter(150), 2.5));
            painter.drawRect(w);
        }
    }

    if (showLabels_ && showsLabels()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        const QVector<RegionLabel> all = labels(view);
        drawPlacedLabels(painter, all, placeRegionLabels(all, QFontMetricsF(regionLabelFont(painter.font())), viewport, {}));
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

namespace {
// The legend's shape in a viewport: entries go down a column, then on in the next one when the view is
// too short for them all.
struct LegendShape {
    int rows = 1;        // entries per column
    double column = 0.0; // width of a column (swatch and text)
    double line = 0.0;   // height of an entry
    QSizeF size;
};
LegendShape legendShape(const QStringList& texts, const QRectF& viewport) {
    const QFontMetricsF metrics(legendFont());
    LegendShape shape;
    double textWidth = 0.0;
    for (const QString& t : texts) textWidth = std::max(textWidth, metrics.horizontalAdvance(t));
    shape.line = std::max(metrics.height(), kSwatch) + 3.0;
    shape.column = textWidth + kSwatch + 6.0;
    const int n = static_cast<int>(texts.size());
    const double room = viewport.height() - 2 * kLegendMargin - 2 * kLegendPadding + 3.0;
    shape.rows = std::clamp(static_cast<int>(std::floor(room / shape.line)), 1, std::max(1, n));
    const int columns = (n + shape.rows - 1) / shape.rows;
    shape.rows = (n + columns - 1) / columns; // balanced columns
    shape.size = QSizeF(columns * shape.column + (columns - 1) * 12.0 + 2 * kLegendPadding,
                        shape.rows * shape.line - 3.0 + 2 * kLegendPadding);
    return shape;
}
} // namespace

QRectF BrightestSweepLayer::legendRect(const QRectF& viewport, const ViewTransform& view) const {
    if (pivots_.isEmpty()) return {};
    const QFontMetricsF metrics(legendFont());
    QStringList texts;
    for (const Pivot& p : pivots_) texts << p.text;
    const QSizeF size = legendShape(texts, viewport).size;
    // Corners of the viewport, the box kept inside it (margins shrink in a tiny view; the top-left of the
    // box stays in view whatever happens, so the legend is never clipped at the top).
    const double marginX = std::clamp((viewport.width() - size.width()) / 2.0, 0.0, kLegendMargin);
    const double marginY = std::clamp((viewport.height() - size.height()) / 2.0, 0.0, kLegendMargin);
    const double left = viewport.left() + marginX;
    const double right = std::max(left, viewport.right() - marginX - size.width());
    const double top = viewport.top() + marginY;
    const double bottom = std::max(top, viewport.bottom() - marginY - size.height());
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
        if (!p.layer || !p.layer->isVisible() || !p.layer->showsLabels()) continue;
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
    QStringList texts;
    for (const Pivot& p : pivots_) texts << p.text;
    const LegendShape shape = legendShape(texts, viewport);
    const double line = shape.line;
    for (int i = 0; i < pivots_.size(); ++i) {
        const Pivot& p = pivots_[i];
        const int column = i / shape.rows, row = i % shape.rows;
        const double left = box.left() + kLegendPadding + column * (shape.column + 12.0);
        const double top = box.top() + kLegendPadding + row * line;
        const bool shown = p.layer && p.layer->isVisible();
        const QColor colour = p.layer ? p.layer->colour() : QColor(128, 128, 128);
        const QRectF swatch(std::round(left) + 0.5, std::round(top + (line - 3.0 - kSwatch) / 2.0) + 0.5, kSwatch, kSwatch);
        painter.setPen(QPen(colour, 1.0));
        painter.setBrush(shown ? QBrush(colour) : Qt::NoBrush); // a hollow swatch: the pivot's layer is hidden
        painter.drawRect(swatch);
        painter.setPen(shown ? QColor(240, 240, 240) : QColor(150, 150, 150));
        painter.drawText(QPointF(swatch.right() + 6.0, top + (line - 3.0 - metrics.height()) / 2.0 + metrics.ascent()), p.text);
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
