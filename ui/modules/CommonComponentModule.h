// Common component in the window: a second image (B) opened beside the current one (A), the search run
// as a job (core's findCommonComponent), and the answer shown on both images, side by side or with B
// blended over A at the found offset, plus a results row and a timing record per run.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "ui/jobs/LatestOnly.h"
#include "ui/modules/AnalysisModule.h"

#include <QPoint>
#include <QPointer>

#include <memory>
#include <optional>

class QActionGroup;

namespace glint::ui {

class CommonComponentPanel;
class ComponentLayer;
struct ComponentShape;
class DisplayPipeline;
class OverlayLayer;
class ResultsModel;
class SecondImageLayer;

class CommonComponentModule : public AnalysisModule {
    Q_OBJECT
public:
    enum class View { SideBySide, Blend };

    explicit CommonComponentModule(AppContext& context, QObject* parent = nullptr);
    ~CommonComponentModule() override;

    QString name() const override { return tr("Common component"); }
    QList<QAction*> actions() override;
    QList<QAction*> fileActions() override;
    QWidget* createPanel() override;

    QVector<ExportableResults> exportableResults() const override;
    QString sessionKey() const override { return QStringLiteral("common"); }
    QJsonObject saveSession() const override;
    QHash<QString, SessionInput> sessionInputs(const QJsonObject& state) const override;
    std::function<void()> prepareSession(const QJsonObject& state, const SessionImages& inputs) override;

    // --- Image B
    // B belongs to the analysis of the image current when it was opened (A): it is closed, with the result,
    // when another image A is opened or when the user removes its layer or the component's. A B opened
    // before any A belongs to the next A opened. Sessions restore it with their A.
    // Loads off the UI thread: secondImageChanged() on success, secondImageFailed() (B kept) otherwise.
    void openSecondImage(const QString& path);
    // An image made in memory, shown at once (tests, generated pairs).
    void setSecondImage(glint::Image image, const QString& path);
    // Closes B (and drops the result it took part in); a B still loading is not shown.
    void closeSecondImage();
    std::shared_ptr<const glint::Image> secondImage() const { return second_; }
    QString secondImagePath() const { return secondPath_; }
    bool isLoadingSecond() const { return loading_.busy(); }
    // B is loaded and its frame, for the current display settings, is the one the canvas paints.
    bool isSecondImageShown() const;

    // --- Parameters (the panel edits them)
    glint::CommonComponentParams parameters() const { return params_; }
    void setParameters(const glint::CommonComponentParams& params);
    glint::Backend backend() const { return backend_; }
    void setBackend(glint::Backend backend);

    // Starts the search as a job; false when A or B is missing or another job runs.
    bool run();

    // --- The last result shown (for the images current now), and the view
    const glint::CommonComponentResult* result() const { return result_.get(); }
    View view() const { return view_; }
    void setView(View view);
    double blendOpacity() const { return blendOpacity_; }
    void setBlendOpacity(double opacity);
    // Where B's pixel (0, 0) lies in the canvas (A's image coordinates) in the current view.
    QPoint secondPlacement() const;

    SecondImageLayer* secondLayer() const;
    ComponentLayer* componentLayerA() const;
    ComponentLayer* componentLayerB() const;
    ResultsModel* model() const;
    CommonComponentPanel* panel() const;

signals:
    void secondImageChanged();
    void secondImageFailed(const QString& path, const QString& message);
    void resultShown(); // a run's answer (found or not) is on screen

private:
    void showSecond(std::shared_ptr<const glint::Image> image, const QString& path);
    void chooseSecondFile();
    void renderSecond();
    void ensureSecondLayer();
    void dropResult();
    void onImageChanged();
    void onLayerRemoved(OverlayLayer* layer);
    void takeOwner(); // B belongs to the current A from now on
    void showResult(const std::shared_ptr<const glint::CommonComponentResult>& result,
                    const std::shared_ptr<const ComponentShape>& shape, glint::Backend resolved, double tolerance,
                    const glint::JobControl& job);
    // The layers, result row and panel summary of a result (a finished search, or one read from a session;
    // ms: the search's time, when there was one).
    void presentResult(const std::shared_ptr<const glint::CommonComponentResult>& result,
                       const std::shared_ptr<const ComponentShape>& shape, const QString& backend, double tolerance,
                       std::optional<double> ms);
    void place();
    void showCursor(QPointF imagePoint);
    void updateActions();
    QString secondDescription() const;
    QString parameterText() const;

    QAction* openSecondAction_;
    QAction* findAction_;
    QAction* sideBySideAction_;
    QAction* blendAction_;
    QActionGroup* viewGroup_;
    DisplayPipeline* secondDisplay_;
    QPointer<CommonComponentPanel> panel_;
    QPointer<SecondImageLayer> secondLayer_;
    QPointer<ComponentLayer> layerA_;
    QPointer<ComponentLayer> layerB_;
    QPointer<ResultsModel> model_;

    std::shared_ptr<const glint::Image> second_;
    QString secondPath_;
    // The A that B (shown or loading) belongs to; ownerSet_ false: B came before any A.
    std::weak_ptr<const glint::Image> owner_;
    bool ownerSet_ = false;
    LatestOnly loading_;
    glint::CommonComponentParams params_;
    glint::Backend backend_ = glint::Backend::Auto;
    std::shared_ptr<const glint::CommonComponentResult> result_;
    double resultTolerance_ = 0.0; // the tolerance the shown result was found with
    QString resultBackend_;
    QString resultNote_; // why the shown result is empty (no common pixel), for the status bar
    // The shown result as session JSON, kept so that autosaves do not compress a large mask again.
    mutable std::shared_ptr<const glint::CommonComponentResult> savedResult_;
    mutable QJsonObject savedResultJson_;
    View view_ = View::SideBySide;
    double blendOpacity_ = 0.5;
    int runs_ = 0;
};

} // namespace glint::ui
