#include "ui/results/SkyFormatToggle.h"

#include "ui/results/ResultsModel.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace glint::ui {

QAction* installSkyFormatToggle(QTableView* table, QSortFilterProxyModel* proxy) {
    auto* action = new QAction(QObject::tr("RA/Dec as hh:mm:ss / ±dd:mm:ss"), table);
    action->setObjectName(QStringLiteral("SexagesimalAction"));
    action->setCheckable(true);
    action->setStatusTip(QObject::tr("RA in hours to 0.001 s, Dec to 0.01″; unticked: degrees with the decimals the "
                                     "pixel scale needs (the exports always hold every digit)"));
    const auto current = [proxy] { return qobject_cast<ResultsModel*>(proxy->sourceModel()); };
    action->setData(false); // the user's last choice: every set with RA/Dec shown next follows it
    const auto sync = [action, current] {
        ResultsModel* model = current();
        if (model && model->hasSkyColumns() && model->sexagesimal() != action->data().toBool())
            model->setSexagesimal(action->data().toBool());
        action->setEnabled(model && model->hasSkyColumns());
        action->setChecked(model && model->sexagesimal());
    };
    QObject::connect(proxy, &QAbstractProxyModel::sourceModelChanged, action, sync);
    QObject::connect(action, &QAction::toggled, action, [current](bool on) {
        if (ResultsModel* model = current()) model->setSexagesimal(on);
    });
    QObject::connect(action, &QAction::triggered, action, [action](bool on) { action->setData(on); }); // the user's
    for (QWidget* w : {static_cast<QWidget*>(table), static_cast<QWidget*>(table->horizontalHeader())}) {
        w->setContextMenuPolicy(Qt::ActionsContextMenu);
        w->addAction(action);
    }
    sync();
    return action;
}

} // namespace glint::ui
