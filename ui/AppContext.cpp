#include "ui/AppContext.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/jobs/JobRunner.h"
#include "core/jobs/Timing.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/TimingLog.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <QFileInfo>

#include <chrono>
#include <exception>
#include <new>
#include <optional>

namespace glint::ui {

LoadedImage LoadedImage::prepare(glint::Image image, const QString& path) {
    LoadedImage loaded;
    loaded.path = path;
    loaded.stats = glint::computeStats(image);
    if (loaded.stats.count > 0) {
        const glint::HistogramRange range = glint::chooseHistogramRange(image, loaded.stats.min, loaded.stats.max);
        loaded.histogram = glint::computeHistogram(image, range.low, range.high, range.bins);
    }
    loaded.image = std::make_shared<const glint::Image>(std::move(image));
    return loaded;
}

AppContext::AppContext(QObject* parent)
    : QObject(parent), pipeline_(new DisplayPipeline(this)), layers_(new LayerStack(this)), jobs_(new JobRunner(this)),
      timingLog_(new TimingLog(this)), undo_(new QUndoStack(this)) {
    connect(this, &AppContext::imageChanged, undo_, &QUndoStack::clear); // an edit belongs to one image
    connect(pipeline_, &DisplayPipeline::frameReady, this, [this] {
        renderDelivered_ = renderRequested_;
        if (canvas_) canvas_->setFrame(pipeline_->frame());
        emit frameReady();
    });
    connect(pipeline_, &DisplayPipeline::failed, this, [this] { renderDelivered_ = renderRequested_; });
}

AppContext::~AppContext() = default;

void AppContext::setWindowParts(QMainWindow* window, ImageCanvas* canvas, ResultsDock* results) {
    window_ = window;
    canvas_ = canvas;
    results_ = results;
    if (canvas_) canvas_->setLayers(layers_);
}

namespace {
bool isDefault(const glint::LoadOptions& o) { return o.hdu < 0 && o.plane == 0 && o.frame == 0; }
} // namespace

QString AppContext::fileKey(const QString& path) {
    const QFileInfo info(path);
    return info.exists() ? info.absoluteFilePath() : path;
}

QString AppContext::imageKey(const LoadedImage& loaded) {
    // Only files are opened again: an image made in memory under a name already used is another image.
    if (loaded.path.isEmpty() || !QFileInfo::exists(loaded.path)) return {};
    const glint::ImageMetadata& m = loaded.image->meta;
    return QStringLiteral("%1#%2/%3/%4").arg(fileKey(loaded.path)).arg(m.hdu).arg(m.plane).arg(m.frame);
}

glint::LoadOptions AppContext::rememberedPart(const QString& path) const { return parts_.value(fileKey(path)); }

glint::LoadOptions AppContext::currentPart() const {
    glint::LoadOptions o;
    if (!current_.image) return o;
    o.hdu = current_.image->meta.hdu;
    o.plane = current_.image->meta.plane;
    o.frame = current_.image->meta.frame;
    return o;
}

void AppContext::openPart(const glint::LoadOptions& options) {
    if (hasImage() && !current_.path.isEmpty()) load(current_.path, options, false);
}

void AppContext::openFile(const QString& path, const glint::LoadOptions& options) {
    const auto remembered = parts_.constFind(fileKey(path));
    if (isDefault(options) && remembered != parts_.constEnd())
        load(path, *remembered, true);
    else
        load(path, options, false);
}

void AppContext::load(const QString& path, const glint::LoadOptions& options, bool remembered) {
    emit loadStarted(path);
    struct Outcome {
        std::optional<LoadedImage> loaded;
        QString error;
    };
    loading_.start(
        this,
        [path, options]() -> Outcome {
            Outcome out;
            out.error = loadError(path, [&] {
                const auto start = std::chrono::steady_clock::now();
                LoadedImage loaded = LoadedImage::prepare(glint::loadImage(path.toStdString(), options), path);
                loaded.loadMs = glint::msSince(start);
                out.loaded = std::move(loaded);
            });
            return out;
        },
        [this, path, remembered](Outcome outcome) {
            if (outcome.loaded) {
                const glint::ImageMetadata& m = outcome.loaded->image->meta;
                if (m.hdu >= 0 || m.planeCount > 1 || m.frameCount > 1) {
                    glint::LoadOptions part;
                    part.hdu = m.hdu;
                    part.plane = m.plane;
                    part.frame = m.frame;
                    parts_.insert(fileKey(path), part);
                }
                showLoaded(std::move(*outcome.loaded));
            } else if (remembered) { // the file changed since: its first image, as for a new file
                parts_.remove(fileKey(path));
                load(path, {}, false);
            } else {
                emit loadFailed(path, outcome.error);
            }
        });
}

QString AppContext::loadError(const QString& path, const std::function<void()>& load) {
    try {
        load();
    } catch (const std::bad_alloc&) {
        return tr("cannot open '%1': not enough memory").arg(path);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString AppContext::imageFileFilter() {
    return tr("Images (*.fits *.fit *.fts *.fz *.dcm *.dicom *.png *.pgm *.pnm *.tif *.tiff *.jpg *.jpeg *.bmp *.csv *.txt);;"
              "All files (*)");
}

void AppContext::setImage(glint::Image image, const QString& path) {
    loading_.drop();
    showLoaded(LoadedImage::prepare(std::move(image), path));
}

void AppContext::showPrepared(LoadedImage loaded) {
    loading_.drop();
    showLoaded(std::move(loaded));
}

void AppContext::showLoaded(LoadedImage loaded) {
    if (current_.image && !imageKey(current_).isEmpty()) imageDisplays_.insert(imageKey(current_), display_);
    current_ = std::move(loaded);
    const QString key = imageKey(current_);
    const auto own = key.isEmpty() ? imageDisplays_.constEnd() : imageDisplays_.constFind(key);
    display_ = own != imageDisplays_.constEnd() ? *own : settingsFor(*current_.image);
    layers_->removeImageLayers();
    if (canvas_) canvas_->setImageGeometry(QSize(current_.image->width(), current_.image->height()),
                                           current_.image->meta.displayYUp);
    requestRender();
    emit imageChanged();
    emit displaySettingsChanged();
}

glint::DisplaySettings AppContext::settingsFor(const glint::Image& image) const {
    glint::DisplaySettings s = preferred_;
    const glint::DisplaySettings imageDefault = glint::defaultDisplaySettings(image);
    if (imageDefault.limits == glint::LimitsMode::Window) { // DICOM: the header's window first
        s.limits = glint::LimitsMode::Window;
        s.low = imageDefault.low;
        s.high = imageDefault.high;
        s.voiChoice = imageDefault.voiChoice;
    } else if (s.limits == glint::LimitsMode::Window || s.limits == glint::LimitsMode::Manual) {
        s.limits = glint::LimitsMode::Percentile;
    }
    return s;
}

void AppContext::setPreferredDisplay(const glint::DisplaySettings& settings) {
    preferred_ = settings;
    if (preferred_.limits == glint::LimitsMode::Window || preferred_.limits == glint::LimitsMode::Manual)
        preferred_.limits = glint::LimitsMode::Percentile;
}

void AppContext::setDisplaySettings(const glint::DisplaySettings& settings) {
    display_ = settings;
    if (display_.limits == glint::LimitsMode::Window && hasImage()) {
        const glint::DisplaySettings d = glint::dicomVoiSettings(*current_.image, settings.voiChoice,
                                                                  glint::defaultDisplaySettings(*current_.image));
        if (d.limits == glint::LimitsMode::Window) {
            display_.low = d.low;
            display_.high = d.high;
            display_.voiChoice = d.voiChoice;
        } else {
            display_.limits = glint::LimitsMode::Percentile; // no window in this image
        }
    }
    requestRender();
    emit displaySettingsChanged();
}

void AppContext::applyDisplayToAll() {
    // One step of the undo stack (not bound to an image: the default is every image's): undo sets back the
    // default and the displays the other images were left with.
    struct Defaults {
        glint::DisplaySettings preferred;
        QHash<QString, glint::DisplaySettings> images;
    };
    const Defaults before{preferred_, imageDisplays_};
    setPreferredDisplay(display_); // manual limits and a DICOM window belong to their image: percentile
    imageDisplays_.clear();
    const Defaults after{preferred_, imageDisplays_};
    emit defaultDisplayChanged();
    class ApplyToAll : public QUndoCommand {
    public:
        ApplyToAll(AppContext& context, Defaults before, Defaults after)
            : QUndoCommand(AppContext::tr("Apply Display to All Images")), context_(context), before_(std::move(before)),
              after_(std::move(after)) {}
        void undo() override { set(before_); }
        void redo() override {
            if (first_) first_ = false; // applied already
            else set(after_);
        }

    private:
        void set(const Defaults& d) {
            context_.preferred_ = d.preferred;
            context_.imageDisplays_ = d.images;
            emit context_.defaultDisplayChanged();
        }
        AppContext& context_;
        Defaults before_, after_;
        bool first_ = true;
    };
    if (undo_) undo_->push(new ApplyToAll(*this, before, after));
}

void AppContext::setManualLimits(double low, double high) {
    glint::DisplaySettings s = display_;
    s.limits = glint::LimitsMode::Manual;
    s.low = low;
    s.high = high;
    setDisplaySettings(s);
}

glint::DisplayLimits AppContext::displayLimits() const {
    if (display_.limits == glint::LimitsMode::Manual || display_.limits == glint::LimitsMode::Window)
        return {display_.low, display_.high};
    const auto f = pipeline_->frame();
    if (f && f->image == current_.image) return f->limits;
    return {current_.stats.min, current_.stats.max};
}

std::shared_ptr<const DisplayFrame> AppContext::frame() const { return pipeline_->frame(); }

bool AppContext::isRendering() const { return renderDelivered_ != renderRequested_; }

void AppContext::requestRender() {
    if (!current_.image) return;
    ++renderRequested_;
    pipeline_->request(current_.image, display_);
}

} // namespace glint::ui
