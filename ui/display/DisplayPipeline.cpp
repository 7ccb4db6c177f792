#include "ui/display/DisplayPipeline.h"

#include "ui/jobs/LatestRequestRunner.h"
#include "core/jobs/Timing.h"

#include <algorithm>

namespace glint::ui {

DisplayPipeline::DisplayPipeline(QObject* parent) : QObject(parent), runner_(new LatestRequestRunner(this)) {
    connect(runner_, &LatestRequestRunner::failed, this, &DisplayPipeline::failed);
    connect(runner_, &LatestRequestRunner::idle, this, &DisplayPipeline::idle);
}

DisplayPipeline::~DisplayPipeline() = default;

bool DisplayPipeline::isBusy() const { return runner_->isBusy(); }

void DisplayPipeline::clear() {
    runner_->cancelAll();
    frame_.reset();
    emit frameReady();
}

void DisplayPipeline::request(std::shared_ptr<const glint::Image> image, const glint::DisplaySettings& settings) {
    if (!image) {
        clear();
        return;
    }
    auto result = std::make_shared<DisplayFrame>();
    runner_->request(
        [image, settings, result](glint::JobControl& job) { *result = render(image, settings, &job); },
        [this, result] {
            frame_ = result;
            emit frameReady();
        });
}

DisplayFrame DisplayPipeline::render(std::shared_ptr<const glint::Image> image, const glint::DisplaySettings& settings,
                                     const glint::JobControl* job) {
    const auto start = std::chrono::steady_clock::now();
    DisplayFrame frame;
    frame.image = image;
    frame.settings = settings;
    frame.limits = glint::computeLimits(*image, settings);
    if (job) job->throwIfCancelled();
    const int width = image->width(), height = image->height();
    const bool flip = image->meta.displayYUp;
    frame.pixels = QImage(width, height, QImage::Format_RGB32);
    if (frame.pixels.isNull()) throw std::runtime_error("not enough memory to display the image");
    const glint::DisplayRenderer renderer(*image, settings, frame.limits, 0xFF202020u);
    // Chunks of about a million pixels keep a superseded render from running on for long.
    const int chunkRows = std::max(1, (1 << 20) / width);
    for (int y = 0; y < height; y += chunkRows) {
        if (job) job->throwIfCancelled();
        renderer.renderRows(y, std::min(height, y + chunkRows), [&](int row) {
            return reinterpret_cast<std::uint32_t*>(frame.pixels.scanLine(flip ? height - 1 - row : row));
        });
    }
    QImage level = frame.pixels;
    while (std::max(level.width(), level.height()) > 512 && std::min(level.width(), level.height()) >= 2) {
        if (job) job->throwIfCancelled();
        level = level.scaled(level.width() / 2, level.height() / 2, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
        frame.mipmaps.push_back(level);
    }
    frame.renderMs = glint::msSince(start);
    return frame;
}

} // namespace glint::ui
