// What an analysis module hands to File ▸ Export Results: one result set's regions in core's region model
// (the exporters' input), the layers that show them, and a common component's mask for the mask PNG.
#pragma once

#include "core/export/ExportRegions.h"
#include "ui/overlay/OverlayLayer.h"

#include <QPointer>
#include <QString>
#include <QVector>

#include <memory>
#include <string>
#include <vector>

namespace glint {
struct CommonComponentResult;
} // namespace glint

namespace glint::ui {

struct ExportableResults {
    QString title;                            // as in the results dock: "Brightest #2: K=3 disjoint, pivot mean"
    std::string description;                  // the file header's line, as the CLI writes it for one run
    std::vector<glint::ExportRegion> regions; // may be empty (a run that found nothing)
    QVector<QPointer<OverlayLayer>> layers;   // the set counts as visible while any of these is shown
    std::shared_ptr<const glint::CommonComponentResult> component; // the mask, for a common component

    bool isVisible() const {
        for (const QPointer<OverlayLayer>& layer : layers)
            if (layer && layer->isVisible()) return true;
        return false;
    }
};

} // namespace glint::ui
