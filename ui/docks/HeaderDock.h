// The image's metadata: a summary (format, size, sample type, statistics, HDU, WCS) and a filterable table
// of the header (FITS cards or DICOM tags): every card in one list, one row each, a search field above it
// and the number of matching cards beside that; summary and list share the dock through a splitter.
#pragma once

#include <QDockWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace glint::ui {

struct LoadedImage;

class HeaderDock : public QDockWidget {
    Q_OBJECT
public:
    explicit HeaderDock(QWidget* parent = nullptr);

    void showImage(const LoadedImage& loaded);
    void clear();
    QLineEdit* filter() const { return filter_; }
    QTableView* table() const { return table_; }
    QLabel* summary() const { return summary_; }
    QLabel* countLabel() const { return count_; }
    int visibleRowCount() const;

private:
    void showCount();

    QLabel* summary_;
    QLabel* count_;
    QLineEdit* filter_;
    QTableView* table_;
    QStandardItemModel* model_;
    QSortFilterProxyModel* proxy_;
};

// One line per fact about the image, as the summary shows them ("Size: 440 × 300").
QStringList describeImage(const LoadedImage& loaded);

} // namespace glint::ui
