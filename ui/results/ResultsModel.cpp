#include "ui/results/ResultsModel.h"

#include <cmath>

namespace glint::ui {

ResultsModel::ResultsModel(const QStringList& columns, QObject* parent) : QAbstractTableModel(parent), columns_(columns) {}

int ResultsModel::addRow(const QVariantList& values, int overlayItem) {
    const int row = static_cast<int>(rows_.size());
    beginInsertRows({}, row, row);
    QVariantList padded = values;
    while (padded.size() < columns_.size()) padded.append(QVariant());
    rows_.append(padded);
    items_.append(overlayItem == -2 ? row : overlayItem);
    endInsertRows();
    return row;
}

void ResultsModel::setColumnDecimals(int column, int decimals) {
    decimals_[column] = decimals;
    if (!rows_.isEmpty()) emit dataChanged(index(0, column), index(static_cast<int>(rows_.size()) - 1, column));
}

void ResultsModel::clear() {
    beginResetModel();
    rows_.clear();
    items_.clear();
    endResetModel();
}

QVariant ResultsModel::value(int row, int column) const {
    if (row < 0 || row >= rows_.size() || column < 0 || column >= columns_.size()) return {};
    return rows_[row][column];
}

int ResultsModel::overlayItem(int row) const { return row >= 0 && row < items_.size() ? items_[row] : -1; }

int ResultsModel::rowForOverlayItem(int item) const { return item < 0 ? -1 : static_cast<int>(items_.indexOf(item)); }

int ResultsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

int ResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

QString ResultsModel::format(const QVariant& value) {
    if (value.typeId() == QMetaType::Double || value.typeId() == QMetaType::Float) {
        const double v = value.toDouble();
        if (std::isnan(v)) return QStringLiteral("—"); // not measured (an SNR without a background map, say)
        if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 1e15) return QString::number(static_cast<qint64>(v));
        // Three decimals read well for means, lengths and scores; tiny values keep 6 significant digits.
        // The exact value stays in RawValueRole and the tooltip.
        if (std::isfinite(v) && std::abs(v) >= 0.01 && std::abs(v) < 1e12) {
            QString text = QString::number(v, 'f', 3);
            while (text.endsWith(QLatin1Char('0'))) text.chop(1);
            if (text.endsWith(QLatin1Char('.'))) text.chop(1);
            return text;
        }
        return QString::number(v, 'g', 6);
    }
    return value.toString();
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const QVariant& v = rows_[index.row()][index.column()];
    switch (role) {
    case Qt::DisplayRole:
        if (const auto d = decimals_.constFind(index.column());
            d != decimals_.cend() && v.typeId() == QMetaType::Double && std::isfinite(v.toDouble()))
            return QString::number(v.toDouble(), 'f', *d);
        return format(v);
    case RawValueRole: return v;
    case Qt::ToolTipRole:
        if (v.typeId() != QMetaType::Double) return {};
        if (std::isnan(v.toDouble())) return tr("Not measured for this result");
        return QString::number(v.toDouble(), 'g', 17);
    case Qt::TextAlignmentRole:
        return v.canConvert<double>() && v.typeId() != QMetaType::QString ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                         : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal) return section < columns_.size() ? columns_[section] : QVariant();
    return section + 1;
}

} // namespace glint::ui
