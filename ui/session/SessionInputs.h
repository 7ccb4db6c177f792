// The image files a module's saved state needs besides the main image (Common component's image B): the
// session loads them all before it applies anything, so that a missing file leaves the window as it was.
#pragma once

#include "core/io/Image.h"
#include "core/io/ImageLoader.h"

#include <QHash>
#include <QString>

#include <memory>

namespace glint::ui {

struct SessionInput {
    QString path;               // as saved (absolute); the session also tries it beside the session file
    glint::LoadOptions options; // HDU, plane, frame
};

// Loaded inputs by the key the module gave them.
using SessionImages = QHash<QString, std::shared_ptr<const glint::Image>>;

// The options an image was loaded with, from its metadata (so that it reopens the same HDU, plane, frame).
inline glint::LoadOptions loadOptionsOf(const glint::Image& image) {
    glint::LoadOptions options;
    options.hdu = image.meta.hdu;
    options.plane = image.meta.plane;
    options.frame = image.meta.frame;
    return options;
}

} // namespace glint::ui
