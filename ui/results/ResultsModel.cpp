#include "ui/results/ResultsModel.h"

#include "core/export/Ds9Regions.h"
#include "core/io/Image.h"
#include "core/io/Wcs.h"

#include <algorithm>
#include <limits>
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

void ResultsModel::setSkyColumns(int raColumn, int decColumn, double pixelScaleDeg) {
    raColumn_ = raColumn;
    decColumn_ = decColumn;
    const int decimals = skyDecimals(pixelScaleDeg);
    setColumnDecimals(raColumn, decimals);
    setColumnDecimals(decColumn, decimals);
}

void ResultsModel::setSexagesimal(bool on) {
    if (sexagesimal_ == on || !hasSkyColumns()) return;
    sexagesimal_ = on;
    if (!rows_.isEmpty()) {
        const int first = std::min(raColumn_, decColumn_), last = std::max(raColumn_, decColumn_);
        emit dataChanged(index(0, first), index(static_cast<int>(rows_.size()) - 1, last));
    }
}

int ResultsModel::skyDecimals(double pixelScaleDeg) {
    if (!std::isfinite(pixelScaleDeg) || pixelScaleDeg <= 0.0) return 6;
    const int d = static_cast<int>(std::ceil(-std::log10(pixelScaleDeg / 10.0) - 1e-9));
    return std::clamp(d, 4, 9);
}

double ResultsModel::pixelScaleDeg(const glint::Image& image) {
    if (!image.meta.wcs) return std::numeric_limits<double>::quiet_NaN();
    const double cx = (image.width() - 1) / 2.0, cy = (image.height() - 1) / 2.0;
    const auto c = image.meta.wcs->pixelToSky(cx, cy), x = image.meta.wcs->pixelToSky(cx + 1, cy),
               y = image.meta.wcs->pixelToSky(cx, cy + 1);
    if (!c || !x || !y) return std::numeric_limits<double>::quiet_NaN();
    return std::min(glint::skySeparationArcsec(*c, *x), glint::skySeparationArcsec(*c, *y)) / 3600.0;
}


// The status bar's readout format (core/io/Wcs.h: 0.001 s of RA, 0.01" of Dec, carried so that rounding
// never shows 60 and 24 h wraps to 0).
QString ResultsModel::sexagesimalRa(double raDeg) {
    return std::isfinite(raDeg) ? QString::fromStdString(glint::formatRa(raDeg)) : QStringLiteral("—");
}

QString ResultsModel::sexagesimalDec(double decDeg) {
    return std::isfinite(decDeg) ? QString::fromStdString(glint::formatDec(decDeg)) : QStringLiteral("—");
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
        if (sexagesimal_ && v.typeId() == QMetaType::Double && (index.column() == raColumn_ || index.column() == decColumn_))
            return index.column() == raColumn_ ? sexagesimalRa(v.toDouble()) : sexagesimalDec(v.toDouble());
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
