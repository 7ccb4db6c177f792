// The files of a truth-injected sky frame (SkyTruth.h): the FITS frame SExtractor and Glint read, the truth CSV.
#include "scenes/SkyTruth.h"
#include "scenes/StarField.h"

#include "core/util/Errors.h"

#include <fitsio.h>

#include <fstream>
#include <iomanip>

namespace glint {

void writeSkyFieldFits(const SkyField& field, const std::string& path) {
    const SkyFieldOptions& o = field.options;
    writeFrameFits(field.image, o.saturation, o.readNoise, path, [&](void* file, int& status) {
        fitsfile* f = static_cast<fitsfile*>(file);
        char ctype1[] = "RA---TAN", ctype2[] = "DEC--TAN", radesys[] = "FK5";
        double crval1 = o.ra, crval2 = o.dec, crpix1 = 0.5 * (o.width + 1), crpix2 = 0.5 * (o.height + 1);
        double cd11 = -o.pixelScale / 3600.0, cd22 = o.pixelScale / 3600.0, zero = 0.0, equinox = 2000.0;
        fits_update_key(f, TSTRING, "CTYPE1", ctype1, "TAN projection", &status);
        fits_update_key(f, TSTRING, "CTYPE2", ctype2, "TAN projection", &status);
        fits_update_key(f, TSTRING, "RADESYS", radesys, nullptr, &status);
        fits_update_key(f, TDOUBLE, "EQUINOX", &equinox, nullptr, &status);
        fits_update_key(f, TDOUBLE, "CRVAL1", &crval1, "deg", &status);
        fits_update_key(f, TDOUBLE, "CRVAL2", &crval2, "deg", &status);
        fits_update_key(f, TDOUBLE, "CRPIX1", &crpix1, nullptr, &status);
        fits_update_key(f, TDOUBLE, "CRPIX2", &crpix2, nullptr, &status);
        fits_update_key(f, TDOUBLE, "CD1_1", &cd11, "deg/px", &status);
        fits_update_key(f, TDOUBLE, "CD1_2", &zero, "deg/px", &status);
        fits_update_key(f, TDOUBLE, "CD2_1", &zero, "deg/px", &status);
        fits_update_key(f, TDOUBLE, "CD2_2", &cd22, "deg/px", &status);
        const std::string comment = "Glint truth-injected sky frame '" + o.name + "' (scenes/SkyTruth.cpp): SYNTHETIC";
        fits_write_comment(f, comment.c_str(), &status);
    });
}

// A plain file (not one of glint-cli's staged outputs: the bench writes it into its temporary folder and reads
// the folder at once).
void writeSkyTruthCsv(const SkyField& field, const std::string& path) {
    std::ofstream out(path);
    {
        out << "id,type,x,y,flux,snr,fwhm,re,sersic_n,axis_ratio,angle_deg,kron_radius,saturated,isolated\n"
            << std::setprecision(10);
        for (std::size_t i = 0; i < field.objects.size(); ++i) {
            const TruthObject& t = field.objects[i];
            out << i + 1 << "," << (t.type == TruthType::Star ? "star" : "galaxy") << "," << t.x << "," << t.y << ","
                << t.flux << "," << t.snr << "," << t.fwhm << "," << t.re << "," << t.sersicN << "," << t.axisRatio
                << "," << t.angleDeg << "," << t.kronRadius << "," << (t.saturated ? 1 : 0) << ","
                << (t.isolated ? 1 : 0) << "\n";
        }
    }
    out.close();
    if (!out) throw OutputError("cannot write " + path);
}

} // namespace glint
