#include "core/export/CatalogWriter.h"

#include "core/export/CsvTable.h"
#include "core/export/FitsMemoryFile.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace glint {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The catalogue's row of one region: the numbers of every column, in catalogColumns() order.
struct Row {
    long number;
    double x, y, flux, snr, peak, background;
    long area;
    double alpha, delta;
    long xmin, ymin, xmax, ymax, flags;
};

Row rowOf(const BrightestRegion& g) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const bool measured = g.measured;
    return {g.rank,
            (measured ? g.centroidX : g.x + (g.width - 1) / 2.0) + 1.0,
            (measured ? g.centroidY : g.y + (g.height - 1) / 2.0) + 1.0,
            measured ? g.flux : g.sum,
            measured ? g.snr : nan,
            measured ? g.peak : nan,
            measured ? g.meanBackground : nan,
            static_cast<long>(g.pixels()),
            g.hasSky ? g.ra : nan,
            g.hasSky ? g.dec : nan,
            g.x + 1L,
            g.y + 1L,
            static_cast<long>(g.x) + g.width,
            static_cast<long>(g.y) + g.height,
            g.flags};
}

std::string csvBytes(const BrightestResult& result) {
    std::string out = csvLine(catalogColumns());
    auto num = [](double v) { return std::isnan(v) ? std::string() : formatNumber(v); };
    for (const BrightestRegion& g : result.regions) {
        const Row r = rowOf(g);
        out += csvLine({std::to_string(r.number), num(r.x), num(r.y), num(r.flux), num(r.snr), num(r.peak),
                        num(r.background), std::to_string(r.area), num(r.alpha), num(r.delta), std::to_string(r.xmin),
                        std::to_string(r.ymin), std::to_string(r.xmax), std::to_string(r.ymax), std::to_string(r.flags)});
    }
    return out;
}

std::string fitsBytes(const BrightestResult& result) {
    FitsMemoryFile file("the FITS catalogue");
    fitsfile* f = file.get();
    const auto check = [&](int status, const char* step) { file.check(status, step); };
    int status = 0;
    fits_create_img(f, BYTE_IMG, 0, nullptr, &status);
    check(status, "primary HDU");
    const std::vector<std::string>& names = catalogColumns();
    std::vector<std::string> forms = {"1J", "1D", "1D", "1D", "1D", "1D", "1D", "1J", "1D", "1D", "1J", "1J", "1J", "1J", "1J"};
    std::vector<std::string> units = {"", "pixel", "pixel", "count", "", "count", "count", "pixel**2", "deg", "deg",
                                      "pixel", "pixel", "pixel", "pixel", ""};
    std::vector<char*> ttype, tform, tunit;
    for (std::size_t i = 0; i < names.size(); ++i) {
        ttype.push_back(const_cast<char*>(names[i].c_str()));
        tform.push_back(const_cast<char*>(forms[i].c_str()));
        tunit.push_back(const_cast<char*>(units[i].c_str()));
    }
    const long n = static_cast<long>(result.regions.size());
    char extname[] = "CATALOG";
    fits_create_tbl(f, BINARY_TBL, n, static_cast<int>(names.size()), ttype.data(), tform.data(), tunit.data(), extname,
                    &status);
    check(status, "table");
    std::vector<Row> rows;
    for (const BrightestRegion& g : result.regions) rows.push_back(rowOf(g));
    auto longs = [&](int col, long Row::*field) {
        std::vector<long> v;
        for (const Row& r : rows) v.push_back(r.*field);
        if (!v.empty()) fits_write_col(f, TLONG, col, 1, 1, n, v.data(), &status);
    };
    auto doubles = [&](int col, double Row::*field) {
        std::vector<double> v;
        for (const Row& r : rows) v.push_back(r.*field);
        if (!v.empty()) fits_write_col(f, TDOUBLE, col, 1, 1, n, v.data(), &status);
    };
    longs(1, &Row::number);
    doubles(2, &Row::x);
    doubles(3, &Row::y);
    doubles(4, &Row::flux);
    doubles(5, &Row::snr);
    doubles(6, &Row::peak);
    doubles(7, &Row::background);
    longs(8, &Row::area);
    doubles(9, &Row::alpha);
    doubles(10, &Row::delta);
    longs(11, &Row::xmin);
    longs(12, &Row::ymin);
    longs(13, &Row::xmax);
    longs(14, &Row::ymax);
    longs(15, &Row::flags);
    check(status, "columns");
    char comment[] = "the Glint catalogue's pivot";
    std::string pivot = result.pivotSpec.text();
    fits_write_key(f, TSTRING, "PIVOT", pivot.data(), comment, &status);
    double threshold = result.threshold;
    fits_write_key(f, TDOUBLE, "THRESH", &threshold, const_cast<char*>("threshold in RMS"), &status);
    if (result.hasModel) {
        double back = result.globalBackground, rms = result.globalRms;
        fits_write_key(f, TDOUBLE, "SEXBKGND", &back, const_cast<char*>("global background"), &status);
        fits_write_key(f, TDOUBLE, "SEXBKDEV", &rms, const_cast<char*>("global background RMS"), &status);
    }
    check(status, "keywords");
    return file.bytes();
}

} // namespace

CatalogFormat catalogFormatForPath(const std::string& path) {
    const std::string p = lower(path);
    if (endsWith(p, ".fits") || endsWith(p, ".fit") || endsWith(p, ".fts")) return CatalogFormat::Fits;
    if (endsWith(p, ".csv")) return CatalogFormat::Csv;
    throw UsageError("option '--catalog' needs a file ending in .fits, .fit, .fts or .csv (got '" + path + "')");
}

const std::vector<std::string>& catalogColumns() {
    static const std::vector<std::string> columns = {
        "NUMBER",      "X_IMAGE",    "Y_IMAGE",    "FLUX",       "SNR",        "FLUX_MAX",   "BACKGROUND", "AREA",
        "ALPHA_J2000", "DELTA_J2000", "XMIN_IMAGE", "YMIN_IMAGE", "XMAX_IMAGE", "YMAX_IMAGE", "FLAGS"};
    return columns;
}

std::string catalogBytes(const BrightestResult& result, CatalogFormat format) {
    return format == CatalogFormat::Fits ? fitsBytes(result) : csvBytes(result);
}

void writeCatalog(const BrightestResult& result, const std::string& path) {
    writeFileAtomically(path, catalogBytes(result, catalogFormatForPath(path)));
}

} // namespace glint
