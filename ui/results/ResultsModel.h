// A table an algorithm fills with its results (rank, x, y, w, h, sum, mean... any columns), each row
// tied to one item of an overlay layer so that the results dock can link rows and shapes both ways.
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>
#include <QVariant>
#include <QVector>

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
};

} // namespace glint::ui
