// The overlays of the brightest-region analysis: the regions of one run (labelled with rank and sum in
// screen space), the legend of a pivot sweep, and the hatched exclusion shapes the search must avoid.
#pragma once

#include "ui/overlay/OverlayLayer.h"
#include "ui/overlay/ShapeLayer.h"

#include <QFont>
#include <QImage>
#include <QLineF>
#include <QPointer>
#include <QRect>
#include <QString>
#include <QVector>

class QFontMetricsF;

namespace glint::ui {

// One found region as the overlay shows it: whole pixels and the label text ("#1  51234").
struct RegionMark {
    int rank = 0;
    QRect pixels;
    QString label;
};

// A label as drawn: next to its rectangle on screen (widget coordinates).
struct RegionLabel {
    QRectF target;
    QString text;
    QColor colour;
    double opacity = 1.0;
    bool selected = false;
    bool mustShow = false; // the selected region and rank 1: shown even where it has to cover another label
    bool priority = false; // a top rank (or mustShow): may stand away with a leader line, outside the density limit
};

// Ranks 1 .. kAlwaysLabelledRanks are labels with priority: they are placed first and may stand away from their
// region with a leader line. Lower ranks are labelled only where their label fits next to (or inside) its region
// with a little clearance from the other labels, and while the labels cover less than kLabelDensity of the view:
// zoomed out on a crowded frame they are left out, zooming in gives them room (the placement runs on every paint).
inline constexpr int kAlwaysLabelledRanks = 10;
inline constexpr double kLabelDensity = 0.12;

// Where a label went: its box (widget coordinates) and, when it stands away from its region, the leader
// line from the box to the region's outline (null when the box touches the region).
struct PlacedLabel {
    int index = -1; // into the labels given
    QRectF box;
    QLineF leader;
};

// Places region labels in the order given (the order is the priority). Each label takes the free spot
// nearest its rectangle: beside it (above, below, left or right), then (priority labels only) farther out on
// rings with a leader line, and inside its rectangle only when nothing outside is free. A label without
// priority needs a few pixels of clearance from the labels already placed, touches its region (no leader
// line) and is left out once the labels placed cover kLabelDensity of the viewport. A spot is free when it lies in the
// viewport and covers no label placed before it nor anything in `taken` (a legend); among free spots the
// one covering the least of any region's rectangle wins, so labels keep off the regions' pixels (the
// lesion) where they can. A label with no free spot is left out (zooming in makes room), except a mustShow
// one, which then takes the spot that covers the fewest labels. The box is sized for `metrics`' font.
QVector<PlacedLabel> placeRegionLabels(const QVector<RegionLabel>& labels, const QFontMetricsF& metrics,
                                       const QRectF& viewport, const QVector<QRectF>& taken);
// The font labels are drawn in (the painter's font, bold, at least 9 points).
QFont regionLabelFont(const QFont& base);

// The regions of one run, drawn so that rank 1 is on top. Labels are drawn in screen space with a dark
// halo, so they stay legible at any zoom and on bright or dark pixels, placed by placeRegionLabels(): no
// two overlap, they keep off the regions where they can, and one that stands away from its region has a
// leader line; where there is no room, the better rank keeps its label (rank 1 and the selected region
// always show theirs). With fading on (K brightest regions that may overlap), rectangles and labels get
// dimmer as the rank grows.
class BrightestRegionLayer : public OverlayLayer {
    Q_OBJECT
public:
    BrightestRegionLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);

    void setRegions(QVector<RegionMark> regions); // in rank order; item i = regions[i]
    const QVector<RegionMark>& regions() const { return regions_; }
    void setFadeWithRank(bool fade);
    bool fadesWithRank() const { return fade_; }
    // The opacity a region of this rank is drawn with (1 without fading).
    double opacityForRank(int rank) const;
    // Off when another layer places this one's labels together with its own (a pivot sweep).
    void setShowLabels(bool show);
    // The labels in the order they claim room: the selected region first, then by rank.
    QVector<RegionLabel> labels(const ViewTransform& view) const;
    // The labels paint() draws in `viewport` (widget coordinates) with `font` (the painter's): indices into
    // labels(view). Empty when labels are hidden (setShowLabels(false) or the label mode).
    QVector<PlacedLabel> placedLabels(const ViewTransform& view, const QRectF& viewport, const QFont& font) const;
    bool hasLabels() const override { return true; }
    bool undoableRemoval() const override { return true; }

    int itemCount() const override { return static_cast<int>(regions_.size()); }
    QRectF itemBounds(int index) const override;
    int hitTest(QPointF imagePoint, double tolerance) const override;
    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    QVector<RegionMark> regions_;
    mutable QImage boxCache_; // the crowded view's outlines (paint() reuses its memory from frame to frame)
    bool fade_ = false;
    bool showLabels_ = true;
};

// The legend of a pivot sweep, drawn in a corner of the view: one swatch per pivot in the colour of that
// pivot's layer (recolouring or hiding a pivot in the Layers dock shows here at once). It also draws the
// labels of all the pivots' regions, placed together so that nested regions' labels do not overlap.
// It also stands for the sweep as a whole towards the results dock: its items are the regions of all
// pivot layers in turn, and selecting one here selects it in its own layer, and the other way round.
class BrightestSweepLayer : public OverlayLayer {
    Q_OBJECT
public:
    BrightestSweepLayer(const QString& name, QObject* parent = nullptr);

    // Adds a pivot's layer (owned by the layer stack) and the legend text for it.
    void addPivot(BrightestRegionLayer* layer, const QString& legendText);
    int pivotCount() const { return static_cast<int>(pivots_.size()); }
    BrightestRegionLayer* pivotLayer(int index) const { return pivots_.at(index).layer; }
    QString legendText(int index) const { return pivots_.at(index).text; }
    // The legend box in widget coordinates (empty without pivots): in the corner of the viewport where it
    // hides the least of the pivots' rectangles and their labels, then the least of the image; always
    // inside the viewport (in several columns when one would be taller than the view).
    QRectF legendRect(const QRectF& viewport, const ViewTransform& view) const;

    bool undoableRemoval() const override { return true; } // a legend: kept while its removal can be undone
    int itemCount() const override { return total_; }
    QRectF itemBounds(int index) const override;
    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    struct Pivot {
        QPointer<BrightestRegionLayer> layer;
        QString text;
        int first = 0; // the index of its first region among this layer's items
        int count = 0;
    };
    void forwardSelection(int index);
    void pivotSelectionChanged(int pivot, int item);

    QVector<Pivot> pivots_;
    int total_ = 0;
    bool forwarding_ = false;
};

// Exclusion shapes: filled and hatched, so that it is plain which pixels no region may use.
class BrightestExclusionLayer : public ShapeLayer {
    Q_OBJECT
public:
    BrightestExclusionLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);
    void paint(QPainter& painter, const ViewTransform& view) const override;
};

} // namespace glint::ui
