// Generated screen-film mammograms with a truth list, for the mammogram ranking's evaluation (issue 33) and its
// regression gate. SYNTHETIC: no real mammography set was within reach (mini-MIAS, the set, is not on
// this machine and cannot be downloaded; Debian's archive ships no mammogram), so these films reproduce, as
// drawings, the failure modes the issue saw on mini-MIAS: 8-bit, 1024², no metadata; left and right breasts,
// MLO views (pectoral triangle in the top corner of the chest-wall side) and CC views; film labels (rectangles
// of any brightness with text strokes), lead markers ("L MLO" letters), scanner borders (bright or dark strips
// along an edge) and a 148×1 bright strip on the top edge; masses of 2-30 mm (radius 5-75 px at the assumed
// 0.2 mm per pixel) with a low contrast to the fatty or dense tissue around them, and calcification clusters
// of 5-15 tiny bright specks within about 1 cm. About two films in three hold one lesion, as in mini-MIAS.
#pragma once

#include "core/io/Image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

enum class MammoLesionKind { Mass, Calcifications };

struct MammoLesion {
    MammoLesionKind kind = MammoLesionKind::Mass;
    double x = 0.0, y = 0.0; // centre, pixels
    double radius = 0.0;     // mass: its radius; cluster: the radius holding every speck
    double strength = 0.0;   // mass: its density over the tissue's (0.10-0.30 of fat to dense); cluster: its specks
};

struct MammoArtefact { // a label, marker or film-edge strip: its bounding box (what no box may sit on)
    std::string what;  // "label", "marker", "border", "edge strip"
    int x = 0, y = 0, width = 0, height = 0;
};

struct MammoFilm {
    std::string name;        // "film07-L-MLO"
    bool left = true;        // a left breast (chest wall on the image's right, as films are hung)
    bool mlo = true;         // MLO (pectoral muscle) or CC
    Image image;             // 8-bit, no metadata
    std::vector<MammoLesion> lesions;
    std::vector<MammoArtefact> artefacts;
};

// Film `index` of the set for `seed` (deterministic; cv::RNG). Views cycle R-MLO, L-MLO, R-CC, L-CC.
MammoFilm makeMammoFilm(int index, std::uint64_t seed = 33, int side = 1024);
std::vector<MammoFilm> makeMammoFilmSet(int count, std::uint64_t seed = 33, int side = 1024);

// Writes the film as a binary PGM (P5, maxval 255), as mini-MIAS ships them; throws OutputError.
void writeMammoFilmPgm(const MammoFilm& film, const std::string& path);

} // namespace glint
