// The main window: the canvas in the middle; docks for display (histogram), parameters, layers, header,
// results and timing; File/View/Analyze menus; the status bar readout and job progress. It assembles the
// parts, registers the analysis modules, and keeps the settings.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QStringList>

class QLabel;
class QMenu;

namespace glint::ui {

class AnalysisModule;
class AppContext;
class Autosave;
class ExportActions;
class HelpDialog;
class SessionManager;
class DisplayDock;
class HeaderDock;
class ImageCanvas;
class JobStatusWidget;
class LayerDock;
class ParametersDock;
class ResultsDock;
class SampActions;
class StatusReadout;
class TimingDock;

struct MainWindowOptions {
    bool persistSettings = true; // read and write QSettings (off for screenshots: reproducible pictures)
    bool interactive = true;     // message boxes for errors (off: status bar and signals only)
    // The autosave folder. Empty: $GLINT_AUTOSAVE_DIR, else AppDataLocation/autosave when settings persist;
    // with neither there is no autosave (screenshots, tests). $GLINT_AUTOSAVE_ANSWER (restore, discard)
    // answers the offer to restore a crashed session without asking.
    QString autosaveDirectory;
    int autosaveIntervalMs = 60000;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    AppContext& context() const { return *context_; }
    ImageCanvas* canvas() const { return canvas_; }
    DisplayDock* displayDock() const { return displayDock_; }
    HeaderDock* headerDock() const { return headerDock_; }
    LayerDock* layerDock() const { return layerDock_; }
    ResultsDock* resultsDock() const { return resultsDock_; }
    TimingDock* timingDock() const { return timingDock_; }
    ParametersDock* parametersDock() const { return parametersDock_; }
    StatusReadout* readout() const { return readout_; }
    JobStatusWidget* jobStatus() const { return jobStatus_; }
    const QList<AnalysisModule*>& modules() const { return modules_; }
    QStringList recentFiles() const { return recent_; }
    ExportActions* exports() const { return exports_; }
    SessionManager* sessions() const { return sessions_; }
    // File ▸ SAMP (send the image or the catalogue to TOPCAT, DS9): setCatalogueProvider() is its hook.
    SampActions* samp() const { return samp_; }
    Autosave* autosave() const { return autosave_; } // null when there is no autosave folder

    // Opens a file off the UI thread; on failure the current image stays and the loader's message is shown.
    // A session file (.json) is opened as a session.
    void openFile(const QString& path);
    // A message for the user: the status bar, and a box when the window is interactive. The message is
    // shown as a sentence (its first letter capitalised: core's messages start in lower case).
    void reportError(const QString& title, const QString& message);

    // Help ▸ User Guide (at a section: "brightest", "display", …; empty: the top) and Keyboard Shortcuts.
    HelpDialog* showUserGuide(const QString& section = {});
    void showShortcuts();
    // Help ▸ Open Example: the bundled sample with the tool it suits brought forward.
    void openExample(const QString& samplePath);
    // Where File ▸ Open Session starts: the folder of the last session opened or saved, else home.
    QString sessionDirectory() const;
    // The status bar's note of the armed drawing tool (empty when panning).
    QString toolHint() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void registerModules();
    void addModule(AnalysisModule* module);
    void createDocks();
    void applyDefaultDockSizes(); // the right column 340 px wide, the results dock ten rows high
    void fitResultsRows();        // grows the results dock to ten rows where the layout gave it fewer
    void fitResultsRowsSoon();
    void createMenus();
    void createStatusBar();
    void connectContext();
    void openDialog();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void loadSettings();
    void saveSettings() const;
    void createSessions();
    void openSessionDialog();
    void saveSessionDialog();

    MainWindowOptions options_;
    AppContext* context_;
    ImageCanvas* canvas_;
    DisplayDock* displayDock_ = nullptr;
    HeaderDock* headerDock_ = nullptr;
    LayerDock* layerDock_ = nullptr;
    ResultsDock* resultsDock_ = nullptr;
    TimingDock* timingDock_ = nullptr;
    ParametersDock* parametersDock_ = nullptr;
    StatusReadout* readout_ = nullptr;
    JobStatusWidget* jobStatus_ = nullptr;
    ExportActions* exports_ = nullptr;
    SessionManager* sessions_ = nullptr;
    SampActions* samp_ = nullptr;
    Autosave* autosave_ = nullptr;
    QMenu* fileMenu_ = nullptr;
    QAction* fileModulesEnd_ = nullptr; // modules' File entries go above this separator
    QMenu* viewMenu_ = nullptr;
    QMenu* analyzeMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QList<AnalysisModule*> modules_;
    QStringList recent_;
    QString lastDirectory_;
    QString lastSessionDirectory_;
    QLabel* toolHint_ = nullptr;
    HelpDialog* help_ = nullptr;
    bool shownOnce_ = false;
    bool stateRestored_ = false;
    bool defaultDocks_ = false;   // the default dock sizes follow the window until the user drags a dock edge
    bool dockFitPending_ = false;
};

// A message as a sentence: its first letter in upper case ("cannot open 'x'" → "Cannot open 'x'").
QString asSentence(const QString& message);

} // namespace glint::ui
