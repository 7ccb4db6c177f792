// Scores a ranking of generated mammograms (scenes/MammoFilms.h) against their truth: a lesion is found by a box
// that holds its centre and whose longer side is at most max(3 lesion diameters, 60 px). Figures: the share of lesions inside one of a film's top-10 boxes and inside box #1;
// FROC-style sensitivity at 0.5, 1, 2 and 4 false-positive marks per image (every film's boxes pooled and taken
// in order of their score, a box that holds no lesion centre being a false positive, a second box on a found
// lesion neither); the top-10 boxes that touch a film artefact (label, marker, border, edge strip); and the
// top-10 slots taken by a second box on one lesion (a box is on a lesion when it marks it or its centre lies
// within the lesion's extent: a mass's radius, the radius holding a cluster's specks).
#pragma once

#include "core/algo/regions/RegionSearch.h"
#include "scenes/MammoFilms.h"

#include <array>
#include <string>
#include <vector>

namespace glint {

struct MammoScore {
    int films = 0;
    int lesions = 0;
    double top10 = 0.0, top1 = 0.0;           // shares of lesions
    std::array<double, 4> froc{};             // sensitivity at 0.5, 1, 2, 4 false-positive marks per image
    int artefactBoxes = 0;                    // top-10 boxes touching a label, marker, border or edge strip
    int duplicateBoxes = 0;                   // top-10 boxes on a lesion that a higher top-10 box is already on
    std::vector<std::string> artefactNotes;   // "film03-L-MLO #2 on label"
    int filmsRecognised = 0;                  // films classifyImage called mammograms (filled by the caller)
    double meanBoxes = 0.0;                   // boxes per film
};

// Whether box `r` marks lesion `l`: it holds the lesion's centre and its longer side is at most
// max(6 radii, 60 px) (a box over the whole breast marks nothing).
bool mammoBoxMarksLesion(const BrightestRegion& r, const MammoLesion& l);

// `regions[i]`: film i's boxes in rank order. A box's score for the FROC pooling: its contrast where it has
// one, else its SNR where measured, else its sum.
MammoScore scoreMammoFilms(const std::vector<MammoFilm>& films, const std::vector<std::vector<BrightestRegion>>& regions);

} // namespace glint
