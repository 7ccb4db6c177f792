// Scoring of a mammogram ranking against the generated films' truth (MammoScore.h).
#include "scenes/MammoScore.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace glint {

namespace {

bool holds(const BrightestRegion& r, double x, double y) {
    return x >= r.x - 0.5 && y >= r.y - 0.5 && x < r.x + r.width - 0.5 && y < r.y + r.height - 0.5;
}

} // namespace

// A box marks a lesion when it holds its centre and is not much larger than it: its longer side at most three
// times the lesion's diameter, or 60 px (12 mm at 0.2 mm), whichever is larger (a box over the whole breast
// marks nothing).
bool mammoBoxMarksLesion(const BrightestRegion& r, const MammoLesion& l) {
    return holds(r, l.x, l.y) && std::max(r.width, r.height) <= std::max(6.0 * l.radius, 60.0);
}

namespace {

bool touches(const BrightestRegion& r, const MammoArtefact& a) {
    return r.x < a.x + a.width && a.x < r.x + r.width && r.y < a.y + a.height && a.y < r.y + r.height;
}

double scoreOf(const BrightestRegion& r) {
    if (!std::isnan(r.contrast)) return r.contrast;
    if (r.measured && std::isfinite(r.snr)) return r.snr;
    return r.sum;
}

} // namespace

MammoScore scoreMammoFilms(const std::vector<MammoFilm>& films, const std::vector<std::vector<BrightestRegion>>& regions) {
    MammoScore s;
    s.films = static_cast<int>(films.size());
    int in10 = 0, in1 = 0, boxes = 0;
    struct Mark { double score; int film; int lesion; }; // lesion -1: a false positive
    std::vector<Mark> marks;
    int lesionBase = 0;
    for (std::size_t f = 0; f < films.size(); ++f) {
        const MammoFilm& film = films[f];
        const std::vector<BrightestRegion>& rs = f < regions.size() ? regions[f] : std::vector<BrightestRegion>{};
        s.lesions += static_cast<int>(film.lesions.size());
        boxes += static_cast<int>(rs.size());
        for (const MammoLesion& l : film.lesions) {
            for (std::size_t i = 0; i < rs.size() && i < 10; ++i)
                if (mammoBoxMarksLesion(rs[i], l)) {
                    ++in10;
                    break;
                }
            if (!rs.empty() && mammoBoxMarksLesion(rs[0], l)) ++in1;
        }
        // Second boxes on one lesion: a box is on a lesion when it marks it or its centre lies within its extent.
        std::vector<char> taken(film.lesions.size(), 0);
        for (std::size_t i = 0; i < rs.size() && i < 10; ++i) {
            const double bx = rs[i].x + (rs[i].width - 1) / 2.0, by = rs[i].y + (rs[i].height - 1) / 2.0;
            bool duplicate = false;
            for (std::size_t j = 0; j < film.lesions.size(); ++j) {
                const MammoLesion& l = film.lesions[j];
                if (!mammoBoxMarksLesion(rs[i], l) && std::hypot(bx - l.x, by - l.y) > l.radius) continue;
                if (taken[j]) duplicate = true;
                taken[j] = 1;
            }
            if (duplicate) ++s.duplicateBoxes;
        }
        for (std::size_t i = 0; i < rs.size() && i < 10; ++i)
            for (const MammoArtefact& a : film.artefacts)
                if (touches(rs[i], a)) {
                    ++s.artefactBoxes;
                    s.artefactNotes.push_back(film.name + " #" + std::to_string(i + 1) + " on " + a.what);
                    break;
                }
        for (const BrightestRegion& r : rs) {
            int hit = -1;
            for (std::size_t j = 0; j < film.lesions.size() && hit < 0; ++j)
                if (mammoBoxMarksLesion(r, film.lesions[j])) hit = lesionBase + static_cast<int>(j);
            marks.push_back({scoreOf(r), static_cast<int>(f), hit});
        }
        lesionBase += static_cast<int>(film.lesions.size());
    }
    if (s.lesions > 0) {
        s.top10 = static_cast<double>(in10) / s.lesions;
        s.top1 = static_cast<double>(in1) / s.lesions;
    }
    s.meanBoxes = s.films > 0 ? static_cast<double>(boxes) / s.films : 0.0;
    std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.score > b.score; });
    const std::array<double, 4> levels{0.5, 1.0, 2.0, 4.0};
    for (std::size_t li = 0; li < levels.size(); ++li) {
        const double allowed = levels[li] * s.films;
        std::vector<char> found(static_cast<std::size_t>(std::max(0, s.lesions)), 0);
        int fp = 0, tp = 0;
        for (const Mark& m : marks) {
            if (m.lesion < 0) {
                if (fp + 1 > allowed) break;
                ++fp;
            } else if (!found[static_cast<std::size_t>(m.lesion)]) {
                found[static_cast<std::size_t>(m.lesion)] = 1;
                ++tp;
            }
        }
        s.froc[li] = s.lesions > 0 ? static_cast<double>(tp) / s.lesions : 0.0;
    }
    return s;
}

} // namespace glint
