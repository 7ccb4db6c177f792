// A table an algorithm fills with its results (rank, x, y, w, h, sum, mean... any columns), each row
// tied to one item of an overlay layer so that the results dock can link rows and shapes both ways.
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>
#include <QVariant>
#include <QVector>

namespace glint {
class Image;
} // namespace glint

namespace glint::ui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The raw value of a cell (numbers stay numbers, for sorting and export).
    static constexpr int RawValueRole = Qt::UserRole + 1;

    explicit ResultsModel(const QStringList& columns, QObject* parent = nullptr);

    // values: one per column. overlayItem: the index of this row's item in the linked layer (-1: none;
    // by default the row number).
    int addRow(const QVariantList& values, int overlayItem = -2);
    void clear();
    QStringList columns() const { return columns_; }
    // Numbers of this column shown with exactly this many decimals (RA and Dec: 6), not format()'s 3.
    void setColumnDecimals(int column, int decimals);
    int columnDecimals(int column) const { return decimals_.value(column, -1); } // -1: format()'s
    // The RA and Dec columns (degrees), shown with the decimals the image's pixel scale needs (degrees per
    // pixel; skyDecimals()), or in sexagesimal on demand. The raw values and the tooltip keep every digit.
    void setSkyColumns(int raColumn, int decColumn, double pixelScaleDeg);
    bool hasSkyColumns() const { return raColumn_ >= 0 && decColumn_ >= 0; }
    int raColumn() const { return raColumn_; }
    int decColumn() const { return decColumn_; }
    void setSexagesimal(bool on);
    bool sexagesimal() const { return sexagesimal_; }
    // Decimals of a degree that show a tenth of a pixel at this scale (degrees per pixel), from 4 to 9;
    // 6 when the scale is unknown (not finite or not positive): 0.05"/px (HST) gives 6 (0.0036").
    static int skyDecimals(double pixelScaleDeg);
    // The image's pixel scale in degrees (the smaller side of a pixel at the image's centre, from its WCS);
    // NaN without a WCS.
    static double pixelScaleDeg(const glint::Image& image);
    // "hh:mm:ss.sss" (RA, 0.015" at the equator) and "+dd:mm:ss.ss" (Dec, 0.01").
    static QString sexagesimalRa(double raDeg);
    static QString sexagesimalDec(double decDeg);
    QVariant value(int row, int column) const;
    int overlayItem(int row) const;
    int rowForOverlayItem(int item) const; // -1 when no row shows it

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // How numbers are shown: integers as integers, other doubles with up to 3 decimals (tooltip: all digits).
    static QString format(const QVariant& value);

private:
    QStringList columns_;
    QVector<QVariantList> rows_;
    QVector<int> items_;
    QHash<int, int> decimals_;
    int raColumn_ = -1;
    int decColumn_ = -1;
    bool sexagesimal_ = false;
};

} // namespace glint::ui
