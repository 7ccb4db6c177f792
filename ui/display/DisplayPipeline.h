// Turns the current image and display settings into what the canvas paints: limits resolved (zscale,
// percentile...), the image rendered once into a QImage in display orientation (flipped for y-up) plus
// half-size mipmaps for zoomed-out views. Runs off the UI thread, the newest request winning.
#pragma once

#include "core/display/Display.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <QImage>
#include <QObject>

#include <memory>
#include <vector>

namespace glint::ui {

class LatestRequestRunner;

struct DisplayFrame {
    std::shared_ptr<const glint::Image> image; // what was rendered
    glint::DisplaySettings settings;
    glint::DisplayLimits limits;               // resolved
    QImage pixels;                             // Format_RGB32, display orientation
    bool colour = false;                       // drawn from a colour file's RGB (ui/display/ColourSamples.h)
    std::vector<QImage> mipmaps;               // [k]: 2^-(k+1) size, down to ~256 pixels
    double renderMs = 0.0;
};

class DisplayPipeline : public QObject {
    Q_OBJECT
public:
    explicit DisplayPipeline(QObject* parent = nullptr);
    ~DisplayPipeline() override;

    // Renders asynchronously; frameReady() follows unless a newer request arrives first.
    void request(std::shared_ptr<const glint::Image> image, const glint::DisplaySettings& settings);
    void clear();
    std::shared_ptr<const DisplayFrame> frame() const { return frame_; }
    bool isBusy() const;

    // The frame itself, computed on the calling thread (used by the worker and by tests).
    static DisplayFrame render(std::shared_ptr<const glint::Image> image, const glint::DisplaySettings& settings,
                               const glint::JobControl* job = nullptr);

signals:
    void frameReady();
    void failed(const QString& message);
    void idle();

private:
    LatestRequestRunner* runner_;
    std::shared_ptr<const DisplayFrame> frame_;
};

} // namespace glint::ui
