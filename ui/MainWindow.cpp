#include "ui/MainWindow.h"

#include "ui/AppContext.h"
#include "ui/SampleFiles.h"
#include "ui/StatusReadout.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/canvas/CanvasTool.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/DisplayDock.h"
#include "ui/docks/HeaderDock.h"
#include "ui/docks/LayerDock.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/docks/TimingDock.h"
#include "ui/export/DicomExportActions.h"
#include "ui/export/ExportActions.h"
#include "ui/help/HelpDialog.h"
#include "ui/jobs/JobRunner.h"
#include "ui/jobs/JobStatusWidget.h"
#include "ui/modules/AnalysisModule.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/BrightestModule.h"
#include "ui/modules/SourcesModule.h"
#include "ui/modules/RegionStatisticsModule.h"
#include "ui/modules/TraceModule.h"
#include "ui/results/TimingLog.h"
#include "ui/samp/SampActions.h"
#include "ui/session/Autosave.h"
#include "ui/session/Session.h"
#include "ui/undo/UndoCommands.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QMouseEvent>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace glint::ui {

namespace {
constexpr int kMaxRecentFiles = 10;

// What each bundled sample shows best: a title for Help ▸ Open Example and the tool brought forward.
struct Example {
    QString title;
    QString module; // AnalysisModule::name()
};
Example exampleFor(const QString& path) {
    const QString name = QFileInfo(path).fileName();
    if (name.startsWith(QLatin1String("synthetic-mammogram")))
        return {QObject::tr("Synthetic Mammogram: Brightest Regions"), QObject::tr("Brightest region")};
    if (name.startsWith(QLatin1String("aero")))
        return {QObject::tr("Aerial Photograph: Line Tracing"), QObject::tr("Line trace")};
    if (name.startsWith(QLatin1String("ngc1316")))
        return {QObject::tr("NGC 1316 (FITS with Sky Coordinates): Source Catalogue"), QObject::tr("Sources")};
    return {name, QString()};
}

// The results dock's height in the default layout. Without results it folds to the chooser's line ("No results
// yet"); with them it shows ten rows, or fewer where the canvas would get less than 70 % of the window's height
// (the canvas and the dock share the height between the menu bar and the status bar).
int resultsRoom(const QMainWindow& window, const ImageCanvas& canvas, const ResultsDock& dock) {
    const int folded = dock.minimumSizeHint().height();
    if (dock.resultSetCount() == 0 || dock.table()->isHidden()) return folded;
    const int shared = canvas.height() + dock.height();
    const int canvasAtLeast = (window.height() * 71 + 99) / 100; // 71 %: a pixel or two of rounding to spare
    return std::max(folded, std::min(dock.heightForRows(10), shared - canvasAtLeast));
}
} // namespace

QString asSentence(const QString& message) {
    QString s = message.trimmed();
    if (!s.isEmpty() && s.at(0).isLower()) s[0] = s.at(0).toUpper();
    return s;
}

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(options), context_(new AppContext(this)), canvas_(new ImageCanvas) {
    setWindowTitle(QStringLiteral("Glint"));
    setAcceptDrops(true);
    setCentralWidget(canvas_);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    createDocks();
    context_->setWindowParts(this, canvas_, resultsDock_);
    createStatusBar();
    exports_ = new ExportActions(*this);
    samp_ = new SampActions(*this);
    sessions_ = new SessionManager(*this, this);
    createMenus();
    registerModules();
    installEditMenu(*this, *context_); // Edit ▸ Undo/Redo for the current image's edits
    connectContext();
    createSessions();
    resize(1280, 800);
    if (options_.persistSettings) loadSettings();
}

MainWindow::~MainWindow() = default;

// Every analysis module, one line each. A module brings its own menu actions and parameters panel.
void MainWindow::registerModules() {
    addModule(new RegionStatisticsModule(*context_));
    addModule(new TraceModule(*context_));
    addModule(new CommonComponentModule(*context_));
    addModule(new BrightestModule(*context_));
    auto* sources = new SourcesModule(*context_);
    addModule(sources);
    // File ▸ SAMP ▸ Send Catalogue To: the Sources module's current catalogue as a FITS table.
    samp_->setCatalogueProvider([sources] { return sources->catalogueForSamp(); });
}

void MainWindow::addModule(AnalysisModule* module) {
    module->setParent(this);
    modules_.append(module);
    const QList<QAction*> actions = module->actions();
    if (!actions.isEmpty()) {
        analyzeMenu_->addSection(module->name());
        analyzeMenu_->addActions(actions);
    }
    fileMenu_->insertActions(fileModulesEnd_, module->fileActions());
    if (QWidget* panel = module->createPanel()) parametersDock_->addPanel(module->name(), panel);
    connect(module, &AnalysisModule::panelRequested, this, [this, module] { parametersDock_->showPanel(module->name()); });
}

void MainWindow::createDocks() {
    displayDock_ = new DisplayDock(*context_, this);
    parametersDock_ = new ParametersDock(this);
    layerDock_ = new LayerDock(*context_->layers(), this);
    layerDock_->setUndoStack(context_->undoStack()); // Remove of a results layer is a step of Edit ▸ Undo
    headerDock_ = new HeaderDock(this);
    resultsDock_ = new ResultsDock(canvas_, this);
    timingDock_ = new TimingDock(*context_->timingLog(), this);
    // The right column runs the full height of the window (the results dock sits under the canvas only),
    // so that the parameters fit beside the display controls at 1280 × 800 without scrolling.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    addDockWidget(Qt::RightDockWidgetArea, displayDock_);
    addDockWidget(Qt::RightDockWidgetArea, parametersDock_);
    tabifyDockWidget(parametersDock_, layerDock_);
    tabifyDockWidget(layerDock_, headerDock_);
    parametersDock_->raise();
    addDockWidget(Qt::BottomDockWidgetArea, resultsDock_);
    tabifyDockWidget(resultsDock_, timingDock_);
    resultsDock_->raise();
    resultsDock_->table()->viewport()->installEventFilter(this);
    resultsDock_->table()->installEventFilter(this);
    applyDefaultDockSizes();
}

void MainWindow::applyDefaultDockSizes() {
    resizeDocks({displayDock_}, {340}, Qt::Horizontal);
    resizeDocks({displayDock_, parametersDock_}, {displayDock_->sizeHint().height(), 10000}, Qt::Vertical);
    resizeDocks({resultsDock_}, {resultsRoom(*this, *canvas_, *resultsDock_)}, Qt::Vertical);
    // Measured once laid out: the tab bar of tabbed docks, a window manager's frame or other fonts can leave
    // the table a row or two short of the estimate.
    fitResultsRowsSoon();
}

void MainWindow::fitResultsRowsSoon() {
    if (dockFitPending_ || !defaultDocks_) return;
    dockFitPending_ = true;
    QTimer::singleShot(0, this, [this] {
        dockFitPending_ = false;
        fitResultsRows();
    });
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // The table's room changes when a result brings the column header or a horizontal scroll bar; the table
    // itself comes with the first result and goes when the results are cleared (the dock folds to one line).
    if (event->type() == QEvent::Resize && watched == resultsDock_->table()->viewport()) fitResultsRowsSoon();
    if ((event->type() == QEvent::ShowToParent || event->type() == QEvent::HideToParent) && watched == resultsDock_->table()) {
        // At once, so that the canvas has its new size (and view) when the run that listed the results ends.
        fitResultsRows();
        if (QLayout* l = layout()) l->activate();
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fitResultsRows() {
    if (!defaultDocks_ || !resultsDock_->isVisible() || resultsDock_->isFloating()) return;
    const int wanted = resultsRoom(*this, *canvas_, *resultsDock_);
    const int now = resultsDock_->height();
    if (std::abs(wanted - now) <= 1) return;
    // A height the layout did not give the last time it was asked from this height is not asked again (no loop of
    // fits while the window stays as it is).
    const QPoint attempt(now, wanted);
    if (resultsDock_->property("glintFitAttempt").toPoint() == attempt) return;
    resultsDock_->setProperty("glintFitAttempt", attempt);
    // resizeDocks() leaves a tabbed dock as it is once laid out; a minimum (or maximum) height moves the
    // separator, and is lifted again (the dock has no bounds of its own) as soon as the layout has taken it.
    if (wanted > now) {
        resultsDock_->setMaximumHeight(QWIDGETSIZE_MAX);
        resultsDock_->setMinimumHeight(wanted);
    } else {
        resultsDock_->setMinimumHeight(0);
        resultsDock_->setMaximumHeight(wanted);
    }
    QTimer::singleShot(0, this, [this] {
        resultsDock_->setMinimumHeight(0);
        resultsDock_->setMaximumHeight(QWIDGETSIZE_MAX);
        fitResultsRowsSoon(); // the window may have been resized meanwhile (a window manager fitting it)
    });
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    // The default layout once the window has its size (a layout restored from the settings stays).
    if (!shownOnce_ && !stateRestored_) {
        defaultDocks_ = true;
        applyDefaultDockSizes();
    }
    shownOnce_ = true;
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // A window manager that fits the window to its screen resizes it after it is shown: the default dock
    // sizes follow, until the user sizes a dock.
    if (defaultDocks_ && shownOnce_) applyDefaultDockSizes();
}

bool MainWindow::event(QEvent* event) {
    // A press on the window itself, not one a child passed on, is on a dock separator: the user sizes the
    // docks from now on.
    if (event->type() == QEvent::MouseButtonPress &&
        !childAt(static_cast<QMouseEvent*>(event)->position().toPoint()))
        defaultDocks_ = false;
    return QMainWindow::event(event);
}

void MainWindow::createStatusBar() {
    jobStatus_ = new JobStatusWidget(*context_->jobs(), this);
    statusBar()->addWidget(jobStatus_);
    readout_ = new StatusReadout(*statusBar(), this);
    connect(canvas_, &ImageCanvas::cursorMoved, readout_, &StatusReadout::showCursor);
    connect(canvas_, &ImageCanvas::cursorLeft, readout_, &StatusReadout::clearCursor);
    connect(canvas_, &ImageCanvas::viewChanged, this, [this] { readout_->showZoom(canvas_->scale()); });
    // Which drawing tool is armed (tools stay armed until Esc or another tool).
    toolHint_ = new QLabel;
    toolHint_->setObjectName(QStringLiteral("toolHint"));
    toolHint_->setVisible(false);
    statusBar()->addPermanentWidget(toolHint_);
    connect(canvas_, &ImageCanvas::toolChanged, this, [this](CanvasTool* tool) {
        const bool armed = tool && tool != canvas_->defaultTool();
        toolHint_->setText(armed ? tr("%1: Esc returns to panning").arg(tool->name()) : QString());
        toolHint_->setVisible(armed);
    });
}

QString MainWindow::toolHint() const { return toolHint_->isVisible() ? toolHint_->text() : QString(); }

void MainWindow::createMenus() {
    QMenu* file = fileMenu_ = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    for (const QString& path : bundledSamples())
        samples->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
    samples->setEnabled(!samples->isEmpty());
    fileModulesEnd_ = file->addSeparator();
    file->addAction(tr("Open Sess&ion…"), this, &MainWindow::openSessionDialog);
    QAction* saveSession = file->addAction(tr("Save Sessio&n…"), this, &MainWindow::saveSessionDialog);
    saveSession->setShortcut(QKeySequence::Save);
    file->addSeparator();
    file->addActions(exports_->actions());
    file->addActions((new DicomExportActions(*this))->actions()); // CAD SR, presentation state (DCMTK)
    timingDock_->setExportAction(exports_->timingReportAction());
    file->addMenu(samp_->menu());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    const auto addView = [this](const QString& text, const QKeySequence& key, void (ImageCanvas::*slot)()) {
        QAction* a = viewMenu_->addAction(text, canvas_, slot);
        a->setShortcut(key);
    };
    addView(tr("Zoom &In   (wheel, +)"), QKeySequence::ZoomIn, &ImageCanvas::zoomIn);
    addView(tr("Zoom &Out   (wheel, −)"), QKeySequence::ZoomOut, &ImageCanvas::zoomOut);
    addView(tr("&Fit to Window   (F)"), QKeySequence(Qt::CTRL | Qt::Key_0), &ImageCanvas::fitToWindow);
    addView(tr("&Actual Pixels 1:1   (1)"), QKeySequence(Qt::CTRL | Qt::Key_1), &ImageCanvas::zoomOneToOne);
    viewMenu_->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) viewMenu_->addAction(dock->toggleViewAction());

    analyzeMenu_ = menuBar()->addMenu(tr("&Analyze"));
    // Esc cancels a run wherever the focus is in the window (the canvas, a parameter field), as the Cancel button
    // does. The action is enabled only while a job runs, so that otherwise Esc reaches the focused widget: an armed
    // drawing tool drops back to panning.
    QAction* cancel = analyzeMenu_->addAction(tr("&Cancel Running Job"), jobStatus_->cancelButton(), &QToolButton::click);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WindowShortcut);
    cancel->setEnabled(false);
    connect(context_->jobs(), &JobRunner::busyChanged, cancel, &QAction::setEnabled);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"), this, [this] { showUserGuide(); });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    QMenu* examples = help->addMenu(tr("Open &Example"));
    for (const QString& path : bundledSamples())
        examples->addAction(exampleFor(path).title, this, [this, path] { openExample(path); })->setToolTip(path);
    examples->setEnabled(!examples->isEmpty());
    help->addSeparator();
    help->addAction(tr("&About Glint"), this, [this] {
        QMessageBox::about(this, tr("About Glint"),
                           tr("<b>Glint %1</b><p>Find what stands out in images: brightest regions, K-maximum "
                              "subarrays, common components, traced lines.</p><p>%2</p>")
                               .arg(QStringLiteral(GLINT_VERSION), readout_->backendText()));
    });
    rebuildRecentMenu();
}

void MainWindow::connectContext() {
    AppContext& ctx = *context_;
    connect(&ctx, &AppContext::loadStarted, this,
            [this](const QString& path) { statusBar()->showMessage(tr("Opening %1…").arg(QFileInfo(path).fileName())); });
    connect(&ctx, &AppContext::loadFailed, this, [this](const QString&, const QString& message) {
        statusBar()->clearMessage();
        reportError(tr("Cannot open the file"), message);
    });
    connect(&ctx, &AppContext::imageChanged, this, [this] {
        const LoadedImage& loaded = context_->loaded();
        resultsDock_->clear();
        headerDock_->showImage(loaded);
        readout_->setImage(loaded.image);
        readout_->showZoom(canvas_->scale());
        const QString name = QFileInfo(loaded.path).fileName();
        setWindowTitle(name.isEmpty() ? QStringLiteral("Glint") : tr("%1 — Glint").arg(name));
        statusBar()->showMessage(tr("%1: %2 × %3").arg(name).arg(loaded.image->width()).arg(loaded.image->height()), 5000);
        if (QFileInfo::exists(loaded.path)) addRecentFile(loaded.path);
    });
    connect(ctx.display(), &DisplayPipeline::failed, this,
            [this](const QString& message) { statusBar()->showMessage(tr("Display failed: %1").arg(message), 10000); });
    connect(&ctx, &AppContext::displaySettingsChanged, this, [this] {
        if (options_.persistSettings) saveSettings();
    });
    // Only an explicit Apply to All Images changes the default display (the "displayDefault" keys; the older
    // "display" ones held whatever the last image was shown with, and are not read).
    connect(&ctx, &AppContext::defaultDisplayChanged, this, [this] {
        if (options_.persistSettings) saveSettings();
        // Said as what it is now (Apply to All, or its undo setting the former default back).
        const glint::DisplaySettings& d = context().preferredDisplay();
        statusBar()->showMessage(tr("Default display of every image: %1 scale, %2 limits")
                                     .arg(QLatin1String(glint::displayScaleName(d.scale)), QLatin1String(glint::limitsModeName(d.limits))),
                                 5000);
    });
    connect(displayDock_, &DisplayDock::histogramViewChanged, this, [this] {
        if (options_.persistSettings) saveSettings();
    });

    JobRunner* jobs = ctx.jobs();
    connect(jobs, &JobRunner::finished, this, [this](const QString& name, double ms) {
        statusBar()->showMessage(tr("%1 done in %2 ms").arg(name).arg(ms, 0, 'f', 1), 8000);
    });
    connect(jobs, &JobRunner::cancelled, this,
            [this](const QString& name) { statusBar()->showMessage(tr("%1 cancelled").arg(name), 5000); });
    connect(jobs, &JobRunner::failed, this,
            [this](const QString& name, const QString& message) { reportError(tr("%1 failed").arg(name), message); });
    connect(jobs, &JobRunner::refused, this, [this](const QString& name, const QString& running) {
        statusBar()->showMessage(tr("Cannot start %1: %2 is still running (cancel it first)").arg(name, running), 8000);
    });
}

void MainWindow::reportError(const QString& title, const QString& message) {
    const QString sentence = asSentence(message);
    statusBar()->showMessage(sentence, 10000);
    if (options_.interactive) QMessageBox::warning(this, title, sentence);
}

HelpDialog* MainWindow::showUserGuide(const QString& section) {
    if (!help_) help_ = new HelpDialog(this);
    help_->show();
    help_->raise();
    help_->activateWindow();
    if (!section.isEmpty()) help_->showSection(section);
    return help_;
}

void MainWindow::showShortcuts() {
    auto* dialog = new ShortcutsDialog(shortcutEntries(this), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("ShortcutsDialog"));
    dialog->show();
}

void MainWindow::openExample(const QString& samplePath) {
    openFile(samplePath);
    const QString module = exampleFor(samplePath).module;
    if (!module.isEmpty()) parametersDock_->showPanel(module);
}

QString MainWindow::sessionDirectory() const {
    if (!lastSessionDirectory_.isEmpty() && QFileInfo(lastSessionDirectory_).isDir()) return lastSessionDirectory_;
    return QDir::homePath();
}

void MainWindow::openFile(const QString& path) {
    if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) { // no image format is JSON
        lastSessionDirectory_ = QFileInfo(path).absolutePath();
        sessions_->open(path);
        return;
    }
    // The bundled samples are not where the user keeps files: Open starts where it did before.
    if (QFileInfo(path).absolutePath() != QFileInfo(samplesDirectory()).absoluteFilePath()) lastDirectory_ = QFileInfo(path).absolutePath();
    context_->openFile(path);
}

// Sessions and the autosave: the File menu's entries, their messages, and the offer after a crash.
void MainWindow::createSessions() {
    connect(sessions_, &SessionManager::opened, this, [this](const QString& label) {
        // The autosave's file name means nothing to the user: name the image it brought back instead.
        const bool fromAutosave = autosave_ && QFileInfo(label).absolutePath() == QFileInfo(autosave_->directory()).absoluteFilePath();
        const QString image = QFileInfo(context_->imagePath()).fileName();
        statusBar()->showMessage(fromAutosave ? tr("Last session restored (%1)").arg(image)
                                              : tr("Session restored: %1").arg(QFileInfo(label).fileName()),
                                 8000);
    });
    connect(sessions_, &SessionManager::failed, this,
            [this](const QString&, const QString& message) { reportError(tr("Cannot open the session"), message); });
    QString directory = options_.autosaveDirectory;
    if (directory.isEmpty() && options_.persistSettings)
        directory = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("autosave"));
    AutosaveOptions autosave = AutosaveOptions::fromEnvironment(
        directory, options_.interactive ? AutosaveOptions::Answer::Ask : AutosaveOptions::Answer::Leave);
    if (!options_.autosaveDirectory.isEmpty()) autosave.directory = options_.autosaveDirectory;
    if (autosave.directory.isEmpty()) return;
    autosave.intervalMs = options_.autosaveIntervalMs;
    autosave_ = new Autosave(*sessions_, autosave, this, this);
    if (!autosave_->isActive()) return;
    for (AnalysisModule* module : modules_) connect(module, &AnalysisModule::resultsChanged, autosave_, &Autosave::saveSoon);
    connect(sessions_, &SessionManager::opened, autosave_, &Autosave::saveSoon);
    connect(context_, &AppContext::imageChanged, autosave_, &Autosave::saveSoon);
    QTimer::singleShot(0, autosave_, [this] { autosave_->offerCrashedSession(); });
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), sessionDirectory(),
                                                      tr("Glint sessions (*.glint.json *.json);;All files (*)"));
    if (path.isEmpty()) return;
    lastSessionDirectory_ = QFileInfo(path).absolutePath();
    sessions_->open(path);
}

void MainWindow::saveSessionDialog() {
    if (!sessions_->hasContent()) {
        reportError(tr("Cannot save the session"), tr("Nothing to save: open an image first."));
        return;
    }
    const QFileInfo image(context_->imagePath());
    const QString start = QDir(sessionDirectory()).filePath(image.completeBaseName() + QStringLiteral(".glint.json"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Session"), start, tr("Glint sessions (*.glint.json *.json)"));
    if (path.isEmpty()) return;
    lastSessionDirectory_ = QFileInfo(path).absolutePath();
    try {
        sessions_->save(path);
        statusBar()->showMessage(tr("Session saved: %1").arg(QFileInfo(path).fileName()), 8000);
    } catch (const std::exception& e) {
        reportError(tr("Cannot save the session"), QString::fromStdString(e.what()));
    }
}

void MainWindow::openDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Image"), lastDirectory_, AppContext::imageFileFilter());
    if (!path.isEmpty()) openFile(path);
}

void MainWindow::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent_.removeAll(absolute);
    recent_.prepend(absolute);
    while (recent_.size() > kMaxRecentFiles) recent_.removeLast();
    rebuildRecentMenu();
    if (options_.persistSettings) saveSettings();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    for (const QString& path : recent_)
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })->setToolTip(path);
    recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::loadSettings() {
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    stateRestored_ = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    recent_ = s.value(QStringLiteral("files/recent")).toStringList();
    lastDirectory_ = s.value(QStringLiteral("files/lastDirectory")).toString();
    lastSessionDirectory_ = s.value(QStringLiteral("files/lastSessionDirectory")).toString();
    try {
        displayDock_->setHistogramAxis(glint::parseHistogramAxis(
            s.value(QStringLiteral("histogram/axis"), QStringLiteral("linear")).toString().toStdString()));
    } catch (const std::exception&) {
        displayDock_->setHistogramAxis(glint::HistogramAxis::Linear);
    }
    displayDock_->setZoomedToLimits(s.value(QStringLiteral("histogram/zoomToLimits"), true).toBool());
    glint::DisplaySettings d = context_->preferredDisplay();
    try {
        d.scale = glint::parseDisplayScale(s.value(QStringLiteral("displayDefault/scale"), QStringLiteral("linear")).toString().toStdString());
        d.limits = glint::parseLimitsMode(s.value(QStringLiteral("displayDefault/limits"), QStringLiteral("percentile")).toString().toStdString());
        d.colormap = glint::parseColormap(s.value(QStringLiteral("displayDefault/colormap"), QStringLiteral("grey")).toString().toStdString());
    } catch (const std::exception&) {
        d = glint::DisplaySettings{}; // settings written by a different version: start from the defaults
    }
    d.percentile = std::clamp(s.value(QStringLiteral("displayDefault/percentile"), 99.5).toDouble(), 50.0, 100.0);
    context_->setPreferredDisplay(d);
    if (auto* sexagesimal = findChild<QAction*>(QStringLiteral("SexagesimalAction")))
        sexagesimal->setData(s.value(QStringLiteral("results/sexagesimal"), false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("files/recent"), recent_);
    s.setValue(QStringLiteral("files/lastDirectory"), lastDirectory_);
    s.setValue(QStringLiteral("files/lastSessionDirectory"), lastSessionDirectory_);
    s.setValue(QStringLiteral("histogram/axis"), QString::fromLatin1(glint::histogramAxisName(displayDock_->histogramAxis())));
    s.setValue(QStringLiteral("histogram/zoomToLimits"), displayDock_->zoomedToLimits());
    const glint::DisplaySettings& d = context_->preferredDisplay();
    s.setValue(QStringLiteral("displayDefault/scale"), QString::fromLatin1(glint::displayScaleName(d.scale)));
    s.setValue(QStringLiteral("displayDefault/limits"), QString::fromLatin1(glint::limitsModeName(d.limits)));
    s.setValue(QStringLiteral("displayDefault/colormap"), QString::fromLatin1(glint::colormapName(d.colormap)));
    s.setValue(QStringLiteral("displayDefault/percentile"), d.percentile);
    if (const auto* sexagesimal = findChild<QAction*>(QStringLiteral("SexagesimalAction")))
        s.setValue(QStringLiteral("results/sexagesimal"), sexagesimal->data().toBool());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (options_.persistSettings) saveSettings();
    if (autosave_) autosave_->finish(); // a normal exit: nothing to offer next time
    context_->jobs()->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty() && event->mimeData()->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    openFile(urls.first().toLocalFile());
    event->acceptProposedAction();
}

} // namespace glint::ui
