// Where the analysis modules' parameter panels live: one page per module, chosen in a combo box (or
// brought forward by the module's Analyze-menu action). A panel's group boxes fold: a click on a group's
// title folds it to that title or unfolds it, and when a panel is taller than the dock, groups fold by
// themselves (the lowest first, the first group last, never the one the user last unfolded) until it fits,
// and unfold again when the dock grows, so that a panel is seen whole without scrolling. Lists inside a
// panel show five rows and scroll themselves.
#pragma once

#include <QDockWidget>
#include <QHash>
#include <QPointer>
#include <QVector>

class QComboBox;
class QGroupBox;
class QScrollArea;
class QStackedWidget;

namespace glint::ui {

class ParametersDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ParametersDock(QWidget* parent = nullptr);

    void addPanel(const QString& title, QWidget* panel); // takes ownership
    void showPanel(const QString& title);
    int panelCount() const;
    QString currentTitle() const;

    // The foldable groups of a panel (its top-level group boxes), top to bottom.
    QVector<QGroupBox*> groups(const QString& panelTitle) const;
    bool isFolded(const QGroupBox* group) const;
    // As a click on the group's title does: unfolding makes room by folding other groups.
    void setFolded(QGroupBox* group, bool folded);
    // True when the current panel is shown whole (no scrolling needed).
    bool currentPanelFits() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Group {
        QString title;
        bool folded = false;
        bool byUser = false;               // folded or unfolded by a click (the fitting leaves those be)
        QVector<QPointer<QWidget>> hidden; // the children folding hid
        QMargins margins;                  // of its layout, unfolded (folded: none, so only the title shows)
        int maximumHeight = QWIDGETSIZE_MAX; // unfolded (folded: the title row's height)
    };
    void fold(QGroupBox* box, bool folded);
    void fitCurrentPanel();
    QScrollArea* currentScroll() const;
    QWidget* currentPanel() const;
    int panelHeight(QWidget* panel) const;

    QComboBox* chooser_;
    QStackedWidget* pages_;
    QHash<const QGroupBox*, Group> groups_;
    QPointer<QGroupBox> lastUnfolded_;
    bool fitting_ = false;
};

} // namespace glint::ui
