// What every part of the window and every analysis module shares: the current image (with its statistics
// and histogram), the display settings and the rendered frame, and the canvas, layers, job runner,
// results and timing record. Modules talk to the window only through this object.
#pragma once

#include "core/display/Display.h"
#include "core/display/Histogram.h"
#include "core/io/Image.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "ui/jobs/LatestOnly.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QMainWindow;
class QUndoStack;

namespace glint::ui {

class DisplayPipeline;
struct DisplayFrame;
class ImageCanvas;
class JobRunner;
class LayerStack;
class ResultsDock;
class TimingLog;

// An image as the window holds it: shared read-only with jobs, plus what the docks need, computed once.
struct LoadedImage {
    std::shared_ptr<const glint::Image> image;
    QString path;
    glint::ImageStats stats;
    glint::Histogram histogram;
    double loadMs = 0.0;

    // Statistics and histogram; runs on whatever thread calls it (the loader runs it off the UI thread).
    static LoadedImage prepare(glint::Image image, const QString& path);
};

class AppContext : public QObject {
    Q_OBJECT
public:
    explicit AppContext(QObject* parent = nullptr);
    ~AppContext() override;

    // --- The image
    bool hasImage() const { return current_.image != nullptr; }
    std::shared_ptr<const glint::Image> image() const { return current_.image; }
    const LoadedImage& loaded() const { return current_; }
    QString imagePath() const { return current_.path; }
    bool isLoading() const { return loading_.busy(); }
    // Loads off the UI thread; imageChanged() on success, loadFailed() (current image kept) otherwise.
    // A newer openFile() supersedes one still loading. Without options, a file opened before in this
    // session opens at the HDU, plane or frame it was shown at last (rememberedPart()).
    void openFile(const QString& path, const glint::LoadOptions& options = {});
    // Another HDU, plane (FITS) or frame (DICOM) of the current file; as openFile(), the current image
    // stays with a message when that part holds no image.
    void openPart(const glint::LoadOptions& options);
    // The part of `path` shown last in this session (default options when none).
    glint::LoadOptions rememberedPart(const QString& path) const;
    // The part the current image was read from (for FITS its HDU, never -1).
    glint::LoadOptions currentPart() const;
    // The name filter of the file dialogs that open an image (every format loadImage() reads).
    static QString imageFileFilter();
    // Runs `load`, which reads the file at `path` (on a worker thread): an empty string, or why it could
    // not (what it threw; "not enough memory" for an allocation that failed).
    static QString loadError(const QString& path, const std::function<void()>& load);
    // Shows an image made in memory (tests, generated images), synchronously.
    void setImage(glint::Image image, const QString& path);
    // Shows an image loaded and prepared elsewhere (a session's), superseding any file still loading.
    void showPrepared(LoadedImage loaded);

    // --- Display
    const glint::DisplaySettings& displaySettings() const { return display_; }
    void setDisplaySettings(const glint::DisplaySettings& settings);
    void setManualLimits(double low, double high);
    // The limits in use: those of the frame on screen, or the manual/window ones as soon as they are set.
    glint::DisplayLimits displayLimits() const;
    // Display settings belong to their image: a new image starts from the defaults for its kind (the
    // DICOM window where there is one, over preferredDisplay()), an image shown before in this session
    // from its own last settings. Nothing carries over from one image to the next unless asked:
    // applyDisplayToAll() makes the current settings the default of every image (those other images
    // remembered are dropped) and emits defaultDisplayChanged() (the window keeps it in its settings); one undo
    // step, whose undo sets the former default and remembered displays back (defaultDisplayChanged() again).
    const glint::DisplaySettings& preferredDisplay() const { return preferred_; }
    void setPreferredDisplay(const glint::DisplaySettings& settings);
    void applyDisplayToAll();
    DisplayPipeline* display() const { return pipeline_; }
    std::shared_ptr<const DisplayFrame> frame() const;
    // True while the frame on screen is not yet the one for the current image and settings.
    bool isRendering() const;

    // --- The window's parts (set once by MainWindow)
    ImageCanvas* canvas() const { return canvas_; }
    LayerStack* layers() const { return layers_; }
    JobRunner* jobs() const { return jobs_; }
    TimingLog* timingLog() const { return timingLog_; }
    ResultsDock* results() const { return results_; }
    QMainWindow* window() const { return window_; }
    void setWindowParts(QMainWindow* window, ImageCanvas* canvas, ResultsDock* results);
    // The edits of the current image (ui/undo/UndoCommands.h), emptied when another image becomes current.
    QUndoStack* undoStack() const { return undo_; }

signals:
    void loadStarted(const QString& path);
    void loadFailed(const QString& path, const QString& message);
    void imageChanged();            // a new image is current (display settings already reset for it)
    void displaySettingsChanged();
    void defaultDisplayChanged();   // applyDisplayToAll()
    void frameReady();              // a new frame is on the canvas

private:
    void showLoaded(LoadedImage loaded);
    void load(const QString& path, const glint::LoadOptions& options, bool remembered);
    static QString fileKey(const QString& path);
    static QString imageKey(const LoadedImage& loaded);
    glint::DisplaySettings settingsFor(const glint::Image& image) const;
    void requestRender();

    LoadedImage current_;
    glint::DisplaySettings display_;
    glint::DisplaySettings preferred_;
    QHash<QString, glint::DisplaySettings> imageDisplays_; // imageKey() → the settings it was left with
    QHash<QString, glint::LoadOptions> parts_;              // fileKey() → the part shown last
    DisplayPipeline* pipeline_;
    LayerStack* layers_;
    JobRunner* jobs_;
    TimingLog* timingLog_;
    QUndoStack* undo_;
    ImageCanvas* canvas_ = nullptr;
    ResultsDock* results_ = nullptr;
    QMainWindow* window_ = nullptr;
    LatestOnly loading_;
    quint64 renderRequested_ = 0;
    quint64 renderDelivered_ = 0;
};

} // namespace glint::ui
