// Statistics of a rectangle drawn on the image (pixels, min, max, mean, median): a small analysis that
// uses every part of the module framework (panel, Analyze actions, canvas tool, job runner, results
// dock linked to a layer, timing dock), and the example to copy when adding an algorithm.
#pragma once

#include "ui/modules/AnalysisModule.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/results/ResultsModel.h"

#include <QPair>
#include <QPointer>
#include <QRect>
#include <QVector>

namespace glint::ui {

class RectangleTool;

class RegionStatisticsModule : public AnalysisModule {
    Q_OBJECT
public:
    explicit RegionStatisticsModule(AppContext& context, QObject* parent = nullptr);

    QString name() const override { return tr("Region statistics"); }
    QList<QAction*> actions() override { return {drawAction_, wholeImageAction_}; }
    QWidget* createPanel() override;

    // Measures a rectangle of whole pixels as a job; false when the runner is busy or there is no image.
    bool measure(const QRect& pixels);
    ShapeLayer* layer() const { return layer_; }
    ResultsModel* model() const { return model_; }

    QString sessionKey() const override { return QStringLiteral("statistics"); }
    QJsonObject saveSession() const override;
    std::function<void()> prepareSession(const QJsonObject& state, const SessionImages& inputs) override;

private:
    void ensureOutputs();
    // The rectangle and its result row: the values are #, x, y, width, height, pixels, min, max, mean, median.
    void present(const QRect& r, const QVariantList& values);
    // Edit ▸ Undo of a measurement: the rows shown now (rectangle, values), and the layer and rows rebuilt from a list.
    using Row = QPair<QRect, QVariantList>;
    QVector<Row> shownRows() const;
    void showRows(const QVector<Row>& rows);

    RectangleTool* tool_;
    QAction* drawAction_;
    QAction* wholeImageAction_;
    QPointer<ShapeLayer> layer_;
    QPointer<ResultsModel> model_;
    int count_ = 0;
};

} // namespace glint::ui
