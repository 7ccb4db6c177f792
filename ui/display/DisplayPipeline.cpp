#include "ui/display/DisplayPipeline.h"

#include "ui/display/ColourSamples.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "core/jobs/Timing.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <optional>

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
    constexpr std::uint32_t blankColour = 0xFF202020u;
    const glint::DisplayRenderer renderer(*image, settings, frame.limits, blankColour);
    // A colour file is drawn in colour (its luminance, which the analyses use, through the same limits).
    const auto colour = colormapShowsColour(settings.colormap) ? colourSamplesOf(image) : nullptr;
    if (job) job->throwIfCancelled();
    std::optional<ColourRenderer> colourRenderer;
    if (colour) colourRenderer.emplace(*colour, *image, renderer, blankColour);
    frame.colour = colour != nullptr;
    const auto rowOut = [&](int row) {
        return reinterpret_cast<std::uint32_t*>(frame.pixels.scanLine(flip ? height - 1 - row : row));
    };
    // Chunks of about a million pixels keep a superseded render from running on for long.
    const int chunkRows = std::max(1, (1 << 20) / width);
    for (int y = 0; y < height; y += chunkRows) {
        if (job) job->throwIfCancelled();
        const int end = std::min(height, y + chunkRows);
        if (colourRenderer)
            glint::parallelFor(static_cast<std::size_t>(y), static_cast<std::size_t>(end), 64, [&](std::size_t b, std::size_t e) {
                for (std::size_t row = b; row < e; ++row)
                    colourRenderer->renderRow(static_cast<int>(row), rowOut(static_cast<int>(row)));
            });
        else
            renderer.renderRows(y, end, rowOut);
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
